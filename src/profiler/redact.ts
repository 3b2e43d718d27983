/**
 * Removes secrets before a report is stored: credentials in headers always, plus the
 * header and query names an operator adds (`PROFILER_REDACT`).
 */
export const REDACTED = '[redacted]';
export const ALWAYS_REDACTED = ['authorization', 'cookie', 'set-cookie', 'proxy-authorization'] as const;

export type HeaderValues = Record<string, string | string[]>;

export class Redactor {
  private readonly names: ReadonlySet<string>;

  constructor(extraNames: readonly string[] = []) {
    this.names = new Set([...ALWAYS_REDACTED, ...extraNames.map((name) => name.toLowerCase())]);
  }

  headers(headers: Record<string, string | number | string[] | undefined>): HeaderValues {
    const out: HeaderValues = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const lower = name.toLowerCase();
      out[lower] = this.names.has(lower) ? REDACTED : Array.isArray(value) ? value : String(value);
    }
    return out;
  }

  /** A URL or query string with the values of redacted parameters replaced. */
  url(url: string): string {
    const mark = url.indexOf('?');
    if (mark === -1 || this.names.size === ALWAYS_REDACTED.length) return url;
    const query = url
      .slice(mark + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const name = eq === -1 ? pair : pair.slice(0, eq);
        return this.names.has(safeDecode(name).toLowerCase()) ? `${name}=${REDACTED}` : pair;
      })
      .join('&');
    return `${url.slice(0, mark)}?${query}`;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
