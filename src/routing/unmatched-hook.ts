/**
 * Answers requests the router found no route for, before their body is read: a 301 to
 * the slash twin, or the 404/405 error, handed straight to the error pipeline.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ErrorResponder } from '../errors/error-handler.js';
import { html } from '../utils/html.js';
import { requestTarget, requestUrl } from '../http/request-url.js';
import type { RouteMatcher } from './route-matcher.js';
import { noRouteFound, resolveUnmatched, type ReusedTraces, type UnmatchedOutcome } from './unmatched.js';

/** Where the hook finds the matcher: built once every route is known, after the hook was made. */
interface MatcherSource {
  readonly matcher: RouteMatcher;
}

/**
 * How many frames a reused trace may hold: V8's default depth, which from the raise site
 * reaches back through this hook, the profiler's access hook and the CORS hook, each of
 * which goes on from one line only (kernel-hooks.ts). A deeper `Error.stackTraceLimit`
 * would show the hooks before them, whose way varies (a token leased late): then every
 * error is captured.
 */
const REUSED_TRACE_DEPTH = 10;

/**
 * The unmatched outcome's hook: the router's miss is answered here, before Fastify would
 * read (and limit) the body. It raises its 404 and 405 at fixed sites along a fixed path of
 * the kernel's hooks, so each kind's trace is captured once per hook (once per place in a
 * hook list) and later errors are given the same frames, since a capture is costly on this
 * hot path (bench/NOTES.md, section 1).
 *
 * `trace`: the instance shows traces (debug mode); in production its errors capture none.
 *
 * The error goes to `respond`, the error pipeline, directly: the kernel's most frequent
 * answer skips Fastify's error handling (its error handler and onError hooks: no code of
 * the application's took part in a request none of its routes took).
 */
export function unmatchedHook(routes: MatcherSource, respond: ErrorResponder, trace: boolean): onRequestHookHandler {
  const reused: ReusedTraces = new Map();
  return function unmatched(request, reply, done) {
    if (!request.is404) return done();
    const reuse = trace && Error.stackTraceLimit === REUSED_TRACE_DEPTH;
    const outcome = unmatchedOutcome(routes.matcher, request, reuse ? reused : undefined, trace);
    if ('redirectTo' in outcome) return void sendRedirect(reply, outcome.redirectTo);
    try {
      respond(outcome.error, request, reply);
    } catch (error) {
      // Fastify's own error handling is the net below the pipeline.
      done(error as Error);
    }
  };
}

/** The not-found handler, for the requests the hook did not answer (a route's `reply.callNotFound()`). */
export function answerUnmatched(
  routes: MatcherSource,
  trace: boolean,
): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return function notFound(request, reply) {
    const outcome = unmatchedOutcome(routes.matcher, request, undefined, trace, true);
    if ('error' in outcome) throw outcome.error;
    return sendRedirect(reply, outcome.redirectTo);
  };
}

function unmatchedOutcome(
  matcher: RouteMatcher,
  request: FastifyRequest,
  reused?: ReusedTraces,
  trace = true,
  handedOn = false,
): UnmatchedOutcome {
  const { path, query } = requestTarget(request);
  return resolveUnmatched(
    matcher,
    { method: request.method, path, query, url: requestUrl(request), referer: request.headers.referer, handedOn },
    reused,
    trace,
  );
}

/** The ordinary 404, for a request the kernel answers as if no route existed (a refused profiler page). */
export function noRouteError(request: FastifyRequest): Error {
  return noRouteFound({ method: request.method, url: requestUrl(request), referer: request.headers.referer });
}

function sendRedirect(reply: FastifyReply, location: string): FastifyReply {
  return (
    reply
      .code(301)
      .header('location', location)
      // Decided from the route table of the moment, which changes while one develops: never
      // kept by a browser, as a 301 otherwise would be.
      .header('cache-control', 'no-store')
      .header('content-type', 'text/html; charset=UTF-8')
      .send(
        html`<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><title>Redirecting to ${location}</title></head><body>Redirecting to <a href="${location}">${location}</a>.</body></html>`
          .value,
      )
  );
}
