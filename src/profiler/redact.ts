/**
 * Removes secrets before a report is stored. A name is a secret when it looks like a
 * credential (password, passwd, secret, token, api key, auth, session, cookie, signature
 * and their kin, in any case, with `-`, `_`, `.` or camelCase between words) or is one
 * of the names an operator adds (`PROFILER_REDACT`). Its value is replaced as a header,
 * as a query or form field, and as a `name=value` pair inside any text (a URL, a Referer,
 * a Location, a message built from them), percent-encoded or not.
 *
 * Names are known where a collector builds a section: it redacts headers, query and
 * fields with {@link Redactor.headers}, {@link queryParameters} and {@link Redactor.fields}.
 * Text is everywhere: the report encoder applies {@link Redactor.json} to each report's
 * JSON as a whole, so that no place a URL lands in is missed.
 */
import { redactJson, redactText } from './redact-text.js';

export const REDACTED = '[redacted]';

export type HeaderValues = Record<string, string | string[]>;

/** Names that look like credentials but are the kernel's own public values. */
const NOT_SECRET = new Set(['x-debug-token', 'x-debug-token-link']);

/**
 * Tested on a name in lower case with camelCase split by `_` (`apiKey` is `api_key`):
 * whole words (`auth`, `pw`, `sig`, `sid`), words that end in a credential word
 * (`access_token`, `phpsessid`, `x-hub-signature`) and two-word keys (`api-key`).
 */
const CREDENTIAL_NAME = new RegExp(
  [
    '(?:^|[^a-z0-9])(?:auth|authn|authz|pass|pw|pwd|sig|sid|csrf|xsrf|otp|credentials?)(?=$|[^a-z0-9])',
    '(?:password|passwd|passphrase|secret|token|sessid|sessionid|session|signature|cookie|apikey|privatekey|authori[sz]ation|authentication)(?=$|[^a-z0-9])',
    '(?:^|[^a-z0-9])(?:api|private)[^a-z0-9]?key(?=$|[^a-z0-9])',
  ].join('|'),
);

/** True for a name that looks like a credential's (header, query or form field, JSON member). */
export function isCredentialName(name: string): boolean {
  const lower = name.toLowerCase();
  if (NOT_SECRET.has(lower)) return false;
  const words = /[a-z0-9][A-Z]/.test(name) ? name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase() : lower;
  return CREDENTIAL_NAME.test(words);
}

/** Verdicts remembered at most: a client sending endless new names costs no memory. */
const MAX_VERDICTS = 4096;
/** Longest name whose verdict is remembered: a longer one is judged each time, so a verdict costs a few hundred bytes. */
const MAX_REMEMBERED_NAME = 64;

export class Redactor {
  private readonly names: ReadonlySet<string>;
  private readonly verdicts = new Map<string, boolean>();
  readonly isSecret = (name: string): boolean => this.redacts(name);

  /** `extraNames`: names redacted besides the credential-like ones, compared without case. */
  constructor(extraNames: readonly string[] = []) {
    this.names = new Set(extraNames.map((name) => name.toLowerCase()));
  }

  /** True when values under `name` (a header, a query or form field) are never stored. */
  redacts(name: string): boolean {
    let verdict = this.verdicts.get(name);
    if (verdict === undefined) {
      verdict = this.names.has(name.toLowerCase()) || isCredentialName(name);
      if (name.length > MAX_REMEMBERED_NAME) return verdict;
      if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.clear();
      this.verdicts.set(ownCopy(name), verdict);
    }
    return verdict;
  }

  /** Header values by lower-case name, secrets replaced (secrets inside the others' text are left to {@link json}). */
  headers(headers: Record<string, string | number | string[] | undefined>): HeaderValues {
    const out: HeaderValues = {};
    for (const name in headers) {
      // Own names only, as Object.entries gave them, without its array per header.
      if (!Object.hasOwn(headers, name)) continue;
      const value = headers[name];
      if (value === undefined) continue;
      const lower = name.toLowerCase();
      out[lower] = this.redacts(lower) ? REDACTED : Array.isArray(value) ? value : String(value);
    }
    return out;
  }

  /** Text (a URL, a header value, a message) with the values of secret pairs and userinfo passwords replaced. */
  text(text: string): string {
    return redactText(text, this.isSecret, REDACTED);
  }

  /** A URL or query string with the values of secret parameters replaced. */
  url(url: string): string {
    return this.text(url);
  }

  /**
   * Fields of plain data (a form body, a log line's context), at any depth: the value of
   * a secret name is replaced, whatever it holds. Returns `value` itself when nothing is.
   */
  fields<T>(value: T, depth = 0): T {
    if (typeof value !== 'object' || value === null || depth > MAX_FIELD_DEPTH) return value;
    if (Array.isArray(value)) {
      const items = value.map((item: unknown) => this.fields(item, depth + 1));
      return (items.some((item, i) => item !== value[i]) ? items : value) as T;
    }
    let out: Record<string, unknown> | undefined;
    for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
      const redacted = this.redacts(name) ? REDACTED : this.fields(field, depth + 1);
      if (redacted !== field) (out ??= { ...(value as Record<string, unknown>) })[name] = redacted;
    }
    return (out ?? value) as T;
  }

  /** JSON text with every secret inside its strings replaced: a whole report in one pass. */
  json(json: string): string {
    return redactJson(json, this.isSecret, REDACTED);
  }
}

/** How deep {@link Redactor.fields} looks: deeper data is left as it is. */
const MAX_FIELD_DEPTH = 16;

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

/**
 * `text` in memory of its own: a name cut from a report's JSON may be a slice that keeps the
 * whole JSON alive for as long as the slice lives.
 */
function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
