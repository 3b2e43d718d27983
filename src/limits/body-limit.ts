/**
 * POST_MAX_SIZE for matched routes: a Content-Length over the limit is refused before a
 * byte of the body is read; a body that passes the limit while streaming (chunked, or
 * longer than it said) is cut there. Both are a 413 on a connection closed with care.
 *
 * JSON and text bodies are read by Fastify with `bodyLimit` set to the same limit; this
 * module gives its error the kernel's words. Multipart bodies are counted by the uploads.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ByteSize } from '../config.js';
import { PayloadTooLargeHttpError } from './limit-errors.js';
import { closeAfterResponse } from './lingering-close.js';

/** Fastify's `bodyLimit` for a POST_MAX_SIZE (it has no "unlimited"). */
export function fastifyBodyLimit(limit: ByteSize): number {
  return Number.isFinite(limit.bytes) ? limit.bytes : Number.MAX_SAFE_INTEGER;
}

export function tooLargeMessage(limit: ByteSize, declared?: number): string {
  const size = declared === undefined ? '' : ` (Content-Length: ${declared} bytes)`;
  return `The request body${size} is larger than POST_MAX_SIZE (${limit.text})`;
}

/** Refuses a declared length over the limit in `onRequest`, before the body is touched. */
export function installBodyLimit(scope: FastifyInstance, limit: ByteSize): void {
  // Fastify has no form parser; forms are parsed with the same limit as JSON and text.
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, parseForm(body as string));
  });
  if (!Number.isFinite(limit.bytes)) return;
  scope.addHook('onRequest', (request, reply, done) => {
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit.bytes) {
      closeAfterResponse(request, reply);
      return done(new PayloadTooLargeHttpError(tooLargeMessage(limit, Number(declared))));
    }
    done();
  });
}

/** `a=1&b=2&b=3` → `{ a: '1', b: ['2', '3'] }`, as the query string is parsed. */
export function parseForm(body: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(body)) {
    const previous = fields[name];
    fields[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return fields;
}

/** Fastify's own "body too large" (a streamed body passed the limit) in the kernel's words. */
export function explainBodyLimitError(error: unknown, request: FastifyRequest, reply: FastifyReply, limit: ByteSize): unknown {
  if ((error as { code?: unknown } | null)?.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return error;
  closeAfterResponse(request, reply);
  return new PayloadTooLargeHttpError(tooLargeMessage(limit), { cause: error });
}
