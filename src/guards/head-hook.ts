/**
 * The request head's hook: a head the kernel refuses (too long, two Hosts or none, an unmet
 * Expect) is answered through the pipeline and closes its connection; a CONNECT is refused,
 * the service being no proxy. In debug mode every answer gets the kernel's lower-case `date`;
 * in production the application's answers keep Node's, and the pipeline's errors get the kernel's.
 */
import type { onRequestHookHandler } from 'fastify';
import { MethodNotAllowedHttpError } from '../errors/http-errors.js';
import { httpDate } from '../http/http-date.js';
import { refusedHead } from './malformed-request.js';

/** `stampDate`: every answer gets the kernel's `date` (debug mode). */
export function headHook(stampDate: boolean): onRequestHookHandler {
  return stampDate ? stampedHead : requestHead;
}

const stampedHead: onRequestHookHandler = function stampedHead(request, reply, done) {
  reply.header('date', httpDate());
  requestHead.call(this, request, reply, done);
};

const requestHead: onRequestHookHandler = function requestHead(request, reply, done) {
  const refused = refusedHead(request);
  if (refused) {
    // A head this broken says nothing good of what follows on the connection, as Node judges too.
    reply.header('connection', 'close');
    return done(refused);
  }
  // A tunnel to anywhere is refused, whatever the target (an empty Allow).
  if (request.method === 'CONNECT')
    return done(
      new MethodNotAllowedHttpError([], 'The CONNECT method is not supported: this service opens no tunnels'),
    );
  done();
};
