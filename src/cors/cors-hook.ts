/**
 * The cross-origin hook, before routing: a preflight is answered here on any path (200, or
 * the pipeline's 405 or 400 when the policy refuses it); an actual request from an allowed
 * origin gets its CORS headers. Requests the policy does not cover (the profiler's pages)
 * are left alone.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { BadRequestHttpError, MethodNotAllowedHttpError } from '../errors/http-errors.js';
import type { CorsPolicy } from './cors-policy.js';

interface CorsHookOptions {
  /** True for a request outside the policy: it gets no CORS header and no preflight answer. */
  exempt?: (request: FastifyRequest) => boolean;
}

export function corsHook(cors: CorsPolicy, { exempt }: CorsHookOptions = {}): onRequestHookHandler {
  return function crossOrigin(request, reply, done) {
    const origin = request.headers.origin;
    if (origin !== undefined && !exempt?.(request)) {
      const preflightMethod = request.headers['access-control-request-method'];
      if (request.method === 'OPTIONS' && preflightMethod !== undefined)
        return answerPreflight(cors, origin, request, reply, done);
      const headers = cors.actualRequestHeaders(origin);
      if (headers) reply.headers(headers);
    }
    // One way on, with or without an Origin: the unmatched hook's reused trace holds this frame.
    done();
  };
}

function answerPreflight(
  cors: CorsPolicy,
  origin: string,
  request: FastifyRequest,
  reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const answer = cors.preflight(
    origin,
    String(request.headers['access-control-request-method']),
    request.headers['access-control-request-headers'],
  );
  reply.headers(answer.headers);
  if (answer.verdict === 'method-refused') {
    const allowed = cors.allowMethods.join(', ');
    return done(
      new MethodNotAllowedHttpError(
        cors.allowMethods,
        `The CORS policy does not allow the method "${answer.method}" (Allow: ${allowed})`,
      ),
    );
  }
  if (answer.verdict === 'header-refused') {
    return done(
      new BadRequestHttpError(
        `Unauthorized header ${answer.header} (allowed: ${cors.allowHeaders.join(', ')})`,
        'VIGIL_ERR_CORS_HEADER',
      ),
    );
  }
  reply.code(200).send();
}
