/**
 * The size limits on request bodies of matched routes, and their words: POST_MAX_SIZE bounds every body,
 * refused on its Content-Length before a byte is read; PARSED_BODY_MAX_SIZE bounds, below it, the bodies
 * the kernel holds in memory for the handler (the body readers apply it), and a multipart body's text fields.
 */
import type { onRequestHookHandler } from 'fastify';
import type { ByteSize } from '../config/index.js';
import { PayloadTooLargeHttpError } from './limit-errors.js';
import { closeAfterResponse } from './lingering-close.js';

/** A size limit and the setting it comes from, for the message that names it. */
export interface BodyLimit {
  size: ByteSize;
  setting: string;
  /** What the limit covers when it is not every body. */
  covers?: string;
}

/** Fastify's `bodyLimit` for a POST_MAX_SIZE (it has no "unlimited"). */
export function fastifyBodyLimit(limit: ByteSize): number {
  return Number.isFinite(limit.bytes) ? limit.bytes : Number.MAX_SAFE_INTEGER;
}

export function postBodyLimit(postMaxSize: ByteSize): BodyLimit {
  return { size: postMaxSize, setting: 'POST_MAX_SIZE' };
}

/**
 * The limit of JSON, form and text bodies: PARSED_BODY_MAX_SIZE, unless POST_MAX_SIZE is lower. Lower
 * than for uploads (which go to disk): parsing holds the event loop, parsed objects outweigh their bytes
 * many times over, and a held text body costs its whole size per request.
 */
export function parsedBodyLimit(postMaxSize: ByteSize, parsedBodyMaxSize: ByteSize): BodyLimit {
  if (parsedBodyMaxSize.bytes >= postMaxSize.bytes) return postBodyLimit(postMaxSize);
  return {
    size: parsedBodyMaxSize,
    setting: 'PARSED_BODY_MAX_SIZE',
    covers: 'the limit for JSON, form and text bodies',
  };
}

export function tooLargeMessage(limit: BodyLimit, declared?: number): string {
  const size = declared === undefined ? '' : ` (Content-Length: ${declared} bytes)`;
  const covers = limit.covers === undefined ? '' : `, ${limit.covers}`;
  return `The request body${size} is larger than ${limit.setting} (${limit.size.text})${covers}`;
}

/** A multipart body's text fields over their limit (files are bounded apart, on disk). */
export function fieldsTooLargeMessage(limit: BodyLimit): string {
  const covers = limit.covers === undefined ? '' : `, ${limit.covers}`;
  return `The text fields of the multipart body are larger than ${limit.setting} (${limit.size.text})${covers}`;
}

/** The hook refusing a declared length over POST_MAX_SIZE, before the body is touched; none without a limit. */
export function bodyLimitHook(postMaxSize: ByteSize): onRequestHookHandler | undefined {
  if (!Number.isFinite(postMaxSize.bytes)) return undefined;
  const limit = postBodyLimit(postMaxSize);
  return function declaredBodyLimit(request, reply, done) {
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > postMaxSize.bytes) {
      closeAfterResponse(request, reply);
      return done(new PayloadTooLargeHttpError(tooLargeMessage(limit, Number(declared))));
    }
    done();
  };
}
