/**
 * What PROFILER_SECRET opens in production, and how each is checked: the bearer, compared in
 * constant time; the login page's key, derived from the secret (HMAC), so that only who
 * holds the secret can find the page; and the session cookie, signed with a key derived
 * from the secret (HMAC) and carrying its own expiry, so that no session is kept server-side.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The session cookie's name; sent back on the profiler's paths only. */
export const SESSION_COOKIE = 'vigil_profiler_session';

/** `v1.<expiry in ms since the epoch>.<signature, base64url>`. */
const SESSION_VALUE = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

/** What a session cookie's value turns out to be. */
type SessionState = 'valid' | 'expired' | 'forged';

/** SHA-256 of a text: fixed-length digests that `timingSafeEqual` can compare whatever the lengths given. */
function digestOf(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** True when `given` equals `expected`, in a time that tells nothing of where they differ, nor of their lengths. */
export function sameSecret(given: string, expected: Buffer): boolean {
  return timingSafeEqual(digestOf(given), expected);
}

export class SecretCredentials {
  private readonly secretDigest: Buffer;
  private readonly loginKeyDigest: Buffer;
  private readonly sessionKey: Buffer;
  /** The login page's key (`/_profiler/login?key=`): HMAC-SHA256 of `login` under the secret, in hex. */
  readonly loginKey: string;

  constructor(secret: string) {
    this.secretDigest = digestOf(secret);
    this.loginKey = createHmac('sha256', secret).update('login').digest('hex');
    this.loginKeyDigest = digestOf(this.loginKey);
    // A key of its own: a signature never shows anything of the secret or of the login key.
    this.sessionKey = createHmac('sha256', secret).update('session').digest();
  }

  /** True for the secret itself (a bearer, or the login form's field). */
  isSecret(given: string): boolean {
    return sameSecret(given, this.secretDigest);
  }

  isLoginKey(given: string): boolean {
    return sameSecret(given, this.loginKeyDigest);
  }

  /** A session cookie's value, valid until `expiresAt` (ms since the epoch). */
  session(expiresAt: number): string {
    return `v1.${expiresAt}.${this.signature(expiresAt).toString('base64url')}`;
  }

  /** Whether a cookie's value is a session this secret signed, and still open at `now`. */
  sessionState(value: string, now: number): SessionState {
    const match = SESSION_VALUE.exec(value);
    if (!match) return 'forged';
    const expiresAt = Number(match[1]);
    const given = Buffer.from(match[2]!, 'base64url');
    const expected = this.signature(expiresAt);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'forged';
    return expiresAt > now ? 'valid' : 'expired';
  }

  private signature(expiresAt: number): Buffer {
    return createHmac('sha256', this.sessionKey).update(`session.${expiresAt}`).digest();
  }
}

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case; a secret may hold spaces); undefined for any other. */
export function bearerOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^bearer[ \t]+(\S(?:.*\S)?)[ \t]*$/i.exec(authorization);
  return match?.[1];
}

/** The value of the cookie named `name` in a `Cookie` header; undefined without one. */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals !== -1 && pair.slice(0, equals).trim() === name) return pair.slice(equals + 1).trim();
  }
  return undefined;
}

/** The `Set-Cookie` of a session: script cannot read it, it goes over HTTPS only, never with another site's request, and to the profiler's paths only. */
export function sessionCookie(value: string, path: string, maxAgeMs: number): string {
  return `${SESSION_COOKIE}=${value}; Path=${path}; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; Secure; SameSite=Strict`;
}
