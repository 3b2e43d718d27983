/**
 * The profiler's access hook: a client the profiler does not admit (not loopback, not in
 * PROFILER_ALLOW) learns nothing of it, and gets the ordinary 404 of a path without a route.
 */
import type { onRequestHookHandler } from 'fastify';
import { noRouteError } from '../routing/unmatched-hook.js';
import type { Profiler } from './profiler.js';

export function profilerAccessHook(profiler: Pick<Profiler, 'refuses'>): onRequestHookHandler {
  return function profilerAccess(request, _reply, done) {
    if (profiler.refuses(request)) return done(noRouteError(request));
    done();
  };
}
