/**
 * The access line of each request, for a person at a terminal: method, URL, status, time,
 * and the link to its report. Its level says how the request went: `error` for a 5xx
 * answer, `warn` for a 4xx, `info` for the rest, so that a failure stands out among the
 * 200s and a level filter keeps it. Off unless the log output is pretty: JSON logs and
 * production stay quiet per request (the profiler keeps it all).
 */
import type { onResponseHookHandler } from 'fastify';

function levelOf(status: number): 'error' | 'warn' | 'info' {
  if (status >= 500) return 'error';
  return status >= 400 ? 'warn' : 'info';
}

export const accessLogHook: onResponseHookHandler = (request, reply, done) => {
  const link = reply.getHeader('x-debug-token-link');
  const ms = reply.elapsedTime.toFixed(1);
  request.log[levelOf(reply.statusCode)](
    `${request.method} ${request.url} ${reply.statusCode} ${ms} ms${typeof link === 'string' ? ` ${link}` : ''}`,
  );
  done();
};
