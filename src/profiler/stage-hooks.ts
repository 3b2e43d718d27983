/**
 * The profiler's hooks after its first (`Profiler.tokenHook`): they mark the stages a
 * profiled request goes through, note its error, keep the body it was answered with, and
 * hand its report over once the response is sent or the client is gone. The kernel's
 * lifecycle table (`kernel-hooks.ts`) places them.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onErrorHookHandler,
  onRequestAbortHookHandler,
  onResponseHookHandler,
  onRequestHookHandler,
  onRouteHookHandler,
  onSendHookHandler,
} from 'fastify';
import { performance } from 'node:perf_hooks';
import type { Profiler } from './profiler.js';

/**
 * The route's own last onRequest hook, after every other (the application's too): the body
 * stage runs from here to the handler. An onRequest hook is one more step of a runner every
 * request goes through; a preParsing hook would add a stage of its own.
 */
const markParsing: onRequestHookHandler = (request, _reply, done) => {
  const profile = request.vigil?.profile;
  if (profile) profile.marks.parsing = performance.now();
  done();
};

/**
 * The onRoute hook: each route marks where its body stage begins (its own last onRequest hook),
 * and its handler when it is called, after the preHandler hooks, and which route it is. A
 * wrapper costs a request one call, where a preHandler hook would cost it a hook runner, and
 * the route read here spares reading Fastify's `routeOptions`, which it builds anew at each read.
 */
export const markStagesOf: onRouteHookHandler = (options) => {
  // What is not a function is left for Fastify to refuse, as it would without vigil.
  if (typeof options.handler !== 'function') return;
  const own = options.onRequest;
  if (own === undefined) options.onRequest = markParsing;
  else if (typeof own === 'function') options.onRequest = [own, markParsing];
  else if (Array.isArray(own)) options.onRequest = [...own, markParsing];
  const handler = options.handler as (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown;
  const pattern = options.url;
  options.handler = function markedHandler(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const profile = request.vigil?.profile;
    if (profile) {
      profile.marks.handler = performance.now();
      profile.routePattern = pattern;
    }
    return handler.call(this, request, reply);
  };
};

/** Before the toolbar's onSend: the body kept is the application's, without the bar. */
export const keepResponse: onSendHookHandler = (request, _reply, payload, done) => {
  const profile = request.vigil?.profile;
  if (profile) {
    profile.marks.send ??= performance.now();
    // Kept by reference, previewed after the response (the last one sent, if the pipeline sent twice).
    profile.responseBody = payload;
  }
  done(null, payload);
};

export function noteErrorHook(profiler: Profiler): onErrorHookHandler {
  return (request, _reply, error, done) => {
    profiler.noteError(request, error);
    done();
  };
}

export function finishHook(profiler: Profiler): onResponseHookHandler {
  return (request, _reply, done) => {
    profiler.finish(request);
    done();
  };
}

/**
 * Fastify runs no onResponse for a request whose client went away: its report is written here.
 * HTTP/2 only: on HTTP/1 the profiler sees the connection close (`connection-watch.ts`).
 */
export function abortHook(profiler: Profiler): onRequestAbortHookHandler {
  return (request, done) => {
    profiler.clientGone(request);
    done();
  };
}
