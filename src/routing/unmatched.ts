/**
 * What to answer when the router found nothing for a request: a 301 to the same path
 * with or without its trailing slash, a 405 listing the allowed methods, or a 404.
 */
import { MethodNotAllowedHttpError, NotFoundHttpError } from '../errors/http-errors.js';
import { encodeTarget } from '../http/request-url.js';
import type { RouteMatcher } from './route-matcher.js';
import type { HttpMethod } from './routes.js';

export interface UnmatchedRequest {
  method: string;
  /** The path as the client sent it. */
  path: string;
  /** The query string, with its `?`, or ''. */
  query: string;
  /** The request URL for messages: origin and path, no query. */
  url: string;
  referer: string | undefined;
}

export type UnmatchedOutcome = { redirectTo: string } | { error: NotFoundHttpError | MethodNotAllowedHttpError };

export function resolveUnmatched(matcher: RouteMatcher, request: UnmatchedRequest): UnmatchedOutcome {
  const { method, path } = request;
  const allowed = matcher.allowedMethods(path);
  const answers = allowed.includes(method as HttpMethod) || (method === 'HEAD' && allowed.includes('GET'));
  if ((method === 'GET' || method === 'HEAD') && !answers && path !== '/') {
    const twin = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
    if (matcher.answers('GET', twin)) {
      // The path and query as sent may hold what a header must not (`<`, a quote): encoded.
      return { redirectTo: request.url.slice(0, request.url.length - path.length) + encodeTarget(twin + request.query) };
    }
  }
  // `answers` despite the router's miss means the router saw the path differently: a 404 is the honest answer.
  if (allowed.length > 0 && !answers) {
    const list = allowed.join(', ');
    return {
      error: new MethodNotAllowedHttpError(allowed, `No route found for "${method} ${request.url}": Method Not Allowed (Allow: ${list})`),
    };
  }
  return { error: noRouteFound(request) };
}

/** The 404 of a request no route answers: `No route found for "GET <url>"`, with the Referer when sent. */
export function noRouteFound({ method, url, referer }: Pick<UnmatchedRequest, 'method' | 'url' | 'referer'>): NotFoundHttpError {
  const from = referer === undefined ? '' : ` (from "${referer}")`;
  return new NotFoundHttpError(`No route found for "${method} ${url}"${from}`);
}
