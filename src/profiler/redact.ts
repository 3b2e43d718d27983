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

  /** True when values under `name` (a header or query parameter) are never stored. */
  redacts(name: string): boolean {
    return this.names.has(name.toLowerCase());
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
    if (mark === -1) return url;
    const query = url
      .slice(mark + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const name = eq === -1 ? pair : pair.slice(0, eq);
        return this.redacts(safeDecode(name)) ? `${name}=${REDACTED}` : pair;
      })
      .join('&');
    return `${url.slice(0, mark)}?${query}`;
  }
}

/** The parameters of a query string (without its `?`), decoded, with redacted values replaced. */
export function queryParameters(query: string, redactor: Redactor): Array<{ name: string; value: string }> {
  if (query === '') return [];
  return query.split('&').filter(Boolean).map((pair) => {
    const eq = pair.indexOf('=');
    const name = safeDecode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : safeDecode(pair.slice(eq + 1));
    return { name, value: redactor.redacts(name) ? REDACTED : value };
  });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
