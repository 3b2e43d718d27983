/**
 * What the kernel keeps on a request, in one typed object: `request.vigil`
 * (`const token = request.vigil?.token ?? null`). This module declares what a request is to
 * every floor (its server's host, its origin); each concern adds its own fields where it
 * lives, by augmenting {@link RequestState}, as the lowest floor that reads them (the token
 * in `errors/error-handler.ts`, the uploaded files in `routing/routes.ts`, the profile in
 * `profiler/model/request-profile.ts`):
 *
 * @example
 *   declare module '../http/request-state.js' {
 *     interface RequestState {
 *       uploadedFiles?: UploadedFile[] | null;
 *     }
 *   }
 */
import type { FastifyRequest, onRequestHookHandler } from 'fastify';

export interface RequestState {
  /** The configured HOST as a URL writes it (`[::1]`), or '' when it is a wildcard (`0.0.0.0`, `::`). */
  readonly serverHost: string;
  /** The request's origin once worked out (`requestOrigin`): links, messages and the report all need it. */
  origin: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The kernel's state of this request; null until the kernel's first hook ran. */
    vigil: RequestState | null;
  }
}

/** The decoration's name, for `decorateRequest`. */
export const REQUEST_STATE = 'vigil';

/** A request's state as every request starts it; each concern sets its own fields when it has them. */
function newRequestState(serverHost: string): RequestState {
  return { serverHost, origin: null };
}

/** The first kernel hook: every later stage finds the request's state in place. */
export function requestStateHook(serverHost: string): onRequestHookHandler {
  return function requestState(request, _reply, done) {
    request.vigil = newRequestState(serverHost);
    done();
  };
}

/** The request's state, given now if a failure came before the kernel's first hook. */
export function stateOf(request: FastifyRequest, serverHost = ''): RequestState {
  return (request.vigil ??= newRequestState(serverHost));
}
