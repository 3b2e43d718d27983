/**
 * The access line of each request, for a person at a terminal: method, URL, status, time,
 * and the link to its report. Off unless the log output is pretty: JSON logs and
 * production stay quiet per request (the profiler keeps it all).
 */
import type { onResponseHookHandler } from 'fastify';

export const accessLogHook: onResponseHookHandler = (request, reply, done) => {
  const link = reply.getHeader('x-debug-token-link');
  const ms = reply.elapsedTime.toFixed(1);
  request.log.info(
    `${request.method} ${request.url} ${reply.statusCode} ${ms} ms${typeof link === 'string' ? ` ${link}` : ''}`,
  );
  done();
};
