/**
 * Reads a request body whole, for the parsers of matched routes, under a size limit,
 * BODY_TIMEOUT and BODY_MIN_RATE: a declared Content-Length over the limit is refused
 * before a byte is read, a body that passes the limit is cut there (413), a body that
 * stalls or trickles is cut (408).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { tooLargeMessage, type BodyLimit } from './body-limit.js';
import { watchBody, type BodyPace } from './body-timeout.js';
import { PayloadTooLargeHttpError } from './limit-errors.js';

/** The stream Fastify hands a parser: the request itself, as no hook replaces it. */
type Payload = NodeJS.ReadableStream & { removeListener(event: string, listener: (...args: never[]) => void): unknown };

export function readBody(
  headers: IncomingHttpHeaders,
  payload: Payload,
  limit: BodyLimit,
  pace: BodyPace,
): Promise<Buffer> {
  const declared = Number(headers['content-length']);
  if (declared > limit.size.bytes)
    return Promise.reject(new PayloadTooLargeHttpError(tooLargeMessage(limit, declared)));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      watch.stop();
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('close', onClose);
      // The error listener stays: a stream error after this must not go unheard.
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit.size.bytes) return finish(new PayloadTooLargeHttpError(tooLargeMessage(limit)));
      chunks.push(chunk);
      watch.received(chunk.length);
    };
    const onEnd = () => finish();
    const onError = (error: Error) => finish(Object.assign(error, { statusCode: 400 }));
    const onClose = () =>
      finish(
        Object.assign(new Error('The client closed the connection before the end of the body'), { statusCode: 400 }),
      );
    const watch = watchBody(pace, finish);
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.on('close', onClose);
  });
}
