/**
 * Answers requests the router found no route for, before their body is read: a 301 to
 * the slash twin, or the 404/405 error for the error pipeline to render.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { html } from '../errors/html.js';
import { requestTarget, requestUrl } from '../http/request-url.js';
import type { RouteMatcher } from './route-matcher.js';
import { noRouteFound, resolveUnmatched, type UnmatchedOutcome } from './unmatched.js';

/** Where the hook finds the matcher: built once every route is known, after the hook was made. */
export interface MatcherSource {
  readonly matcher: RouteMatcher;
}

/** The unmatched outcome's hook: the router's miss is answered here, before Fastify would read (and limit) the body. */
export function unmatchedHook(routes: MatcherSource): onRequestHookHandler {
  return function unmatched(request, reply, done) {
    if (!request.is404) return done();
    const outcome = unmatchedOutcome(routes.matcher, request);
    if ('error' in outcome) return done(outcome.error);
    sendRedirect(reply, outcome.redirectTo);
  };
}

/** The not-found handler, for the requests the hook did not answer (a route's `reply.callNotFound()`). */
export function answerUnmatched(routes: MatcherSource): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return function notFound(request, reply) {
    const outcome = unmatchedOutcome(routes.matcher, request);
    if ('error' in outcome) throw outcome.error;
    return sendRedirect(reply, outcome.redirectTo);
  };
}

export function unmatchedOutcome(matcher: RouteMatcher, request: FastifyRequest): UnmatchedOutcome {
  const { path, query } = requestTarget(request);
  return resolveUnmatched(matcher, { method: request.method, path, query, url: requestUrl(request), referer: request.headers.referer });
}

/** The ordinary 404, for a request the kernel answers as if no route existed (a refused profiler page). */
export function noRouteError(request: FastifyRequest): Error {
  return noRouteFound({ method: request.method, url: requestUrl(request), referer: request.headers.referer });
}

export function sendRedirect(reply: FastifyReply, location: string): FastifyReply {
  return reply
    .code(301)
    .header('location', location)
    .header('content-type', 'text/html; charset=UTF-8')
    .send(html`<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><title>Redirecting to ${location}</title></head><body>Redirecting to <a href="${location}">${location}</a>.</body></html>`.value);
}
