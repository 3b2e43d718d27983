/**
 * The profiler's access hook: a client the profiler does not admit (not loopback, not in
 * PROFILER_ALLOW) learns nothing of it, and gets the ordinary 404 of a path without a route.
 */
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { noRouteError } from '../routing/unmatched-hook.js';
import type { Profiler } from './profiler.js';

/** `watchForwarded`: sees every request, to warn of a proxy the kernel does not trust (access.ts). */
export function profilerAccessHook(profiler: Pick<Profiler, 'refuses'>, watchForwarded?: (request: FastifyRequest) => void): onRequestHookHandler {
  return function profilerAccess(request, _reply, done) {
    watchForwarded?.(request);
    if (profiler.refuses(request)) return done(noRouteError(request));
    done();
  };
}
