/**
 * The URL a client asked for, as Symfony's `Request::getUri()` builds it: scheme, host,
 * `:port` only when not the scheme's default, then the path as sent (percent-encoding kept).
 * Scheme and host come from X-Forwarded-* only for trusted proxies (Fastify's `trustProxy`).
 * A request without Host (HTTP/1.0 may omit it) is for the service's own host, and so is
 * every link built for a request whose host is not a valid one.
 */
import type { FastifyRequest } from 'fastify';
import './request-state.js';

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/** A Host value we are willing to print and link to: a name or IP, with an optional port. */
const VALID_HOST = /^(?:[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

export function isValidHost(host: string): boolean {
  return VALID_HOST.test(host);
}

/** `example.com:8443` is `example.com`, `[::1]:8443` is `[::1]`, in lower case. */
export function hostName(host: string): string {
  const colon = host.lastIndexOf(':');
  const name = colon > host.lastIndexOf(']') ? host.slice(0, colon) : host;
  return name.toLowerCase();
}

/** HOST as a URL writes it: an IPv6 address in brackets; '' for a wildcard, which names no host to link to. */
export function urlHost(configured: string): string {
  if (configured === '0.0.0.0' || configured === '::') return '';
  return configured.includes(':') ? `[${configured}]` : configured;
}

/**
 * The host a request is for: its Host (or a trusted proxy's X-Forwarded-Host), as sent;
 * without one, the service's own. Not checked: the kernel refuses what is not valid.
 */
export function requestHost(request: FastifyRequest): string {
  const host = request.host; // a getter that works the host out from the headers each time
  return host === '' && request.headers.host === undefined ? ownHost(request) : host;
}

/** The configured HOST (else the address the connection reached) and the port it reached. */
function ownHost(request: FastifyRequest): string {
  const socket = request.raw.socket as { localAddress?: string; localPort?: number } | null;
  const name = request.vigil?.serverHost || urlHost(socket?.localAddress ?? '') || 'localhost';
  return socket?.localPort === undefined ? name : `${name}:${socket.localPort}`;
}

/** Characters a path and query may hold as they are (RFC 3986 pchar, `/` and `?`), and `%` starting an escape. */
const NOT_IN_TARGET = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu;

/**
 * A path and query fit for a header such as Location: every character a URI may not hold
 * is percent-encoded, escapes already there are kept. Node reads a request target as
 * latin1, one character a byte, so characters up to U+00FF are encoded as that byte
 * (the byte the client sent) and others as UTF-8.
 */
export function encodeTarget(target: string): string {
  return target.replace(NOT_IN_TARGET, (character) => {
    const code = character.codePointAt(0)!;
    const bytes = code <= 0xff ? [code] : [...Buffer.from(character, 'utf8')];
    return bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  });
}

/**
 * `http` or `https`: a trusted proxy's X-Forwarded-Proto when it says one of them (in any
 * case), else the socket's. Any other claim (`javascript`) would end up in links and a
 * Location header: it is ignored.
 */
function requestScheme(request: FastifyRequest): 'http' | 'https' {
  // Typed 'http' | 'https', but Fastify hands over whatever the proxy's header said.
  const claimed: string | undefined = request.protocol;
  if (claimed === 'https' || claimed === 'http') return claimed;
  const lower = claimed?.toLowerCase();
  if (lower === 'https' || lower === 'http') return lower;
  return (request.raw.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
}

/** `https://localhost:8443`, without a default port; the service's own host when the request's is not a valid one. */
export function requestOrigin(request: FastifyRequest): string {
  const state = request.vigil;
  if (state?.origin) return state.origin;
  const scheme = requestScheme(request);
  let host = requestHost(request);
  if (!isValidHost(host)) host = ownHost(request);
  const colon = host.lastIndexOf(':');
  if (colon > host.lastIndexOf(']') && host.slice(colon + 1) === DEFAULT_PORTS[scheme]) host = host.slice(0, colon);
  const origin = `${scheme}://${host}`;
  if (state) state.origin = origin;
  return origin;
}

/** The request target split into the path as sent and the query string (with its `?`). */
export function requestTarget(request: FastifyRequest): { path: string; query: string } {
  let target = request.raw.url ?? '/';
  if (!target.startsWith('/') && target !== '*') {
    // absolute-form (`GET https://host/path HTTP/1.1`): keep only path and query
    const afterScheme = target.indexOf('://');
    const slash = afterScheme === -1 ? -1 : target.indexOf('/', afterScheme + 3);
    target = slash === -1 ? '/' : target.slice(slash);
  }
  const mark = target.indexOf('?');
  return mark === -1 ? { path: target, query: '' } : { path: target.slice(0, mark), query: target.slice(mark) };
}

/** The URL without its query string, as routing messages show it. */
export function requestUrl(request: FastifyRequest): string {
  return requestOrigin(request) + requestTarget(request).path;
}

/** The full URL, query string included, as pages and reports show it. */
export function requestUrlWithQuery(request: FastifyRequest): string {
  const { path, query } = requestTarget(request);
  return requestOrigin(request) + path + query;
}
