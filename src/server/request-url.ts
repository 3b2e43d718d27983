/**
 * The URL a client asked for, as Symfony's `Request::getUri()` builds it: scheme, host,
 * `:port` only when not the scheme's default, then the path as sent (percent-encoding kept).
 * Scheme and host come from X-Forwarded-* only for trusted proxies (Fastify's `trustProxy`).
 */
import type { FastifyRequest } from 'fastify';

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/** A Host value we are willing to print and link to: a name or IP, with an optional port. */
const VALID_HOST = /^(?:[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

export function isValidHost(host: string): boolean {
  return VALID_HOST.test(host);
}

/**
 * `http` or `https`: a trusted proxy's X-Forwarded-Proto when it says one of them (in any
 * case), else the socket's. Any other claim (`javascript`) would end up in links and a
 * Location header: it is ignored.
 */
export function requestScheme(request: FastifyRequest): 'http' | 'https' {
  // Typed 'http' | 'https', but Fastify hands over whatever the proxy's header said.
  const claimed: string | undefined = request.protocol;
  if (claimed === 'https' || claimed === 'http') return claimed;
  const lower = claimed?.toLowerCase();
  if (lower === 'https' || lower === 'http') return lower;
  return (request.raw.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
}

/** `https://localhost:8443`, without a default port. */
export function requestOrigin(request: FastifyRequest): string {
  const scheme = requestScheme(request);
  let host = request.host;
  const colon = host.lastIndexOf(':');
  if (colon > host.lastIndexOf(']') && host.slice(colon + 1) === DEFAULT_PORTS[scheme]) host = host.slice(0, colon);
  return `${scheme}://${host}`;
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
