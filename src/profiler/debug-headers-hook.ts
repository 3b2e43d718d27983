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
/** The profile's note of the application's own Server-Timing, as it was before vigil's. */
const APPLICATION_TIMING = 'applicationServerTiming';

/** `admits`: whether the request's client may open the profiler; no one else gets these headers. */
export function debugHeadersHook(admits: (request: FastifyRequest) => boolean): onSendHookHandler {
  return (request, reply, payload, done) => {
    const profile = request.vigil?.profile;
    if (!profile || !admits(request)) return done(null, payload);
    const timing = serverTiming(profile.marks, performance.now(), activityOf(profile.scope));
    // The application's own metrics come first; an answer sent again (an error in a later
    // onSend) finds vigil's of the first attempt in the header, and replaces them.
    let own = profile.data[APPLICATION_TIMING] as string | undefined;
    if (own === undefined) {
      const set = reply.getHeader('server-timing');
      own = Array.isArray(set) ? set.join(', ') : set === undefined ? '' : String(set);
      profile.data[APPLICATION_TIMING] = own;
    }
    reply.header('server-timing', own === '' ? timing : `${own}, ${timing}`);
    exposeHeaders(reply, EXPOSED);
    done(null, payload);
  };
}
