/**
 * The cookies of a request, read from its Cookie header pair by pair (RFC 6265's
 * `name=value; name=value`), each value redacted when its name looks like a credential or
 * is named in PROFILER_REDACT, as header and query values are.
 */
import { REDACTED, type Redactor } from '../redaction/redact.js';
import { safeDecodeComponent } from '../../utils/safe-decode.js';

/** Cookies kept per request; a marker entry says how many more there were. */
export const MAX_COOKIES = 100;

export interface CookieEntry {
  name: string;
  value: string;
}

export function parseCookies(header: string | string[] | undefined, redactor: Redactor): CookieEntry[] {
  if (header === undefined) return [];
  const cookies: CookieEntry[] = [];
  let more = 0;
  for (const pair of [header].flat().join(';').split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim();
    if (name === '') continue;
    if (cookies.length === MAX_COOKIES) {
      more++;
      continue;
    }
    cookies.push({ name, value: redactor.redacts(name) ? REDACTED : cookieValue(pair.slice(eq + 1).trim()) });
  }
  if (more > 0) cookies.push({ name: '…', value: `${more} more cookies` });
  return cookies;
}

/** A value unquoted and percent-decoded, as most servers read it; a broken escape stays as sent. */
function cookieValue(value: string): string {
  const unquoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  return safeDecodeComponent(unquoted);
}
