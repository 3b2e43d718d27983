/**
 * The debug headers every client the profiler admits gets, a page or not: `Server-Timing`,
 * worked out as the answer is sent, and on a cross-origin answer the debug headers exposed
 * to the other origin's script (`Access-Control-Expose-Headers`), so that a front end served
 * apart reads them. Debug mode only: production has no profiler, so no such hook.
 */
import type { FastifyRequest, onSendHookHandler } from 'fastify';
import { performance } from 'node:perf_hooks';
import { exposeHeaders } from '../cors/exposed-headers.js';
import { activityOf } from './activity/request-activity.js';
import { serverTiming } from './server-timing.js';

const EXPOSED = ['x-debug-token', 'x-debug-token-link', 'Server-Timing'];

/** `admits`: whether the request's client may open the profiler; no one else gets these headers. */
export function debugHeadersHook(admits: (request: FastifyRequest) => boolean): onSendHookHandler {
  return (request, reply, payload, done) => {
    const profile = request.vigil?.profile;
    if (!profile || !admits(request)) return done(null, payload);
    const timing = serverTiming(profile.marks, performance.now(), activityOf(profile.scope));
    // The application's own metrics come first.
    const own = reply.getHeader('server-timing');
    const before = Array.isArray(own) ? own.join(', ') : own === undefined ? '' : String(own);
    reply.header('server-timing', before === '' ? timing : `${before}, ${timing}`);
    exposeHeaders(reply, EXPOSED);
    done(null, payload);
  };
}
