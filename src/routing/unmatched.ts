/**
 * What to answer when the router found nothing for a request: a 301 to the same path
 * with or without its trailing slash (a relative Location), a 405 listing the allowed
 * methods, or a 404.
 */
import { adoptFrames, framesOf, type StackFrame } from '../debug/stack-trace.js';
import type { RouteHint } from '../errors/error-hints.js';
import { MethodNotAllowedHttpError, NotFoundHttpError, type HttpErrorOptions } from '../errors/http-errors.js';
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
  /** A route took it and handed it on (`reply.callNotFound()`): its handler raised the 404, not routing. */
  handedOn?: boolean;
}

export type UnmatchedOutcome = { redirectTo: string } | { error: NotFoundHttpError | MethodNotAllowedHttpError };

/**
 * The frames of each kind of outcome raised along one fixed path (see unmatched-hook.ts):
 * the first error of a kind is captured, the later ones are given its frames.
 */
export type ReusedTraces = Map<typeof NotFoundHttpError | typeof MethodNotAllowedHttpError, readonly StackFrame[]>;

/** `capture`: false for an instance that shows no traces (production): its errors take none. */
export function resolveUnmatched(
  matcher: RouteMatcher,
  request: UnmatchedRequest,
  reused?: ReusedTraces,
  capture = true,
): UnmatchedOutcome {
  const { method, path } = request;
  const allowed = matcher.allowedMethods(path);
  const answers = allowed.includes(method as HttpMethod) || (method === 'HEAD' && allowed.includes('GET'));
  // A Location starting with `//` or `/\` names another host: such a path is not redirected.
  if ((method === 'GET' || method === 'HEAD') && !answers && path !== '/' && !/^\/[/\\]/.test(path)) {
    const twin = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
    if (matcher.answers('GET', twin)) {
      // A path, not a URL: never the Host the client claimed. The path and query as sent may
      // hold what a header must not (`<`, a quote): encoded.
      return { redirectTo: encodeTarget(twin + request.query) };
    }
  }
  // `answers` despite the router's miss means the router saw the path differently: a 404 is the honest answer.
  if (allowed.length > 0 && !answers) {
    const list = allowed.join(', ');
    const known = reused?.get(MethodNotAllowedHttpError);
    const message = `No route found for "${method} ${request.url}": Method Not Allowed (Allow: ${list})`;
    return {
      error: withTrace(
        new MethodNotAllowedHttpError(allowed, message, { capture: capture && known === undefined }),
        known,
        reused,
      ),
    };
  }
  const known = reused?.get(NotFoundHttpError);
  // Debug answers only: production never compares the path with the routes. A route that
  // handed the request on matched it: its handler decided, and no other route is nearer.
  const decided = request.handedOn
    ? { raisedBy: HANDED_ON }
    : { hints: capture ? () => ({ nearRoutes: nearRoutesOf(matcher, path) }) : undefined };
  return {
    error: withTrace(noRouteFound(request, { capture: capture && known === undefined, ...decided }), known, reused),
  };
}

/** The routes a few letters from the path, as a debug answer shows them. */
function nearRoutesOf(matcher: RouteMatcher, path: string): RouteHint[] {
  return matcher.nearest(path).map((near) => ({ methods: near.methods, path: near.path }));
}

/** The debug page's "Raised by" of a 404 no route took: routing decided it, not a line of anyone's source. */
const DECIDED_BY_ROUTING = 'routing: no route matches the path';
/** The same of a 404 a route's handler asked for, whose own frame is past the trace's depth. */
const HANDED_ON = "the route's handler: reply.callNotFound()";

/** The 404 of a request no route answers: `No route found for "GET <url>"`, with the Referer when sent. */
export function noRouteFound(
  { method, url, referer }: Pick<UnmatchedRequest, 'method' | 'url' | 'referer'>,
  options?: HttpErrorOptions,
): NotFoundHttpError {
  const from = referer === undefined ? '' : ` (from "${referer}")`;
  return new NotFoundHttpError(`No route found for "${method} ${url}"${from}`, {
    raisedBy: DECIDED_BY_ROUTING,
    ...options,
  });
}

/** Gives an uncaptured error the frames known for its kind, or records a captured one's. */
function withTrace<E extends NotFoundHttpError | MethodNotAllowedHttpError>(
  error: E,
  known: readonly StackFrame[] | undefined,
  reused: ReusedTraces | undefined,
): E {
  if (known !== undefined) adoptFrames(error, known);
  else reused?.set(error.constructor as typeof NotFoundHttpError, framesOf(error));
  return error;
}
