/**
 * What the kernel keeps on a request, in one typed object: `request.vigil`
 * (`const token = request.vigil?.token ?? null`). Each concern declares its own fields where it
 * lives (the profiler's in `profiler/request-profile.ts`); those read by floors below their owner
 * (the token, the uploaded files) are declared here.
 */
import type { FastifyRequest, onRequestHookHandler } from 'fastify';

/** One file of a multipart upload, saved to a temporary file. */
export interface UploadedFile {
  /** The form field it came in. */
  field: string;
  /** The name the client gave it (never used on disk). */
  filename: string;
  mimetype: string;
  /** Bytes received. */
  size: number;
  /** Absolute path of the temporary file. */
  path: string;
}

export interface RequestState {
  /** The configured HOST as a URL writes it (`[::1]`), or '' when it is a wildcard (`0.0.0.0`, `::`). */
  readonly serverHost: string;
  /** 6-hex token of this request's report; null outside debug mode and for the profiler's pages. */
  token: string | null;
  /** The files of a multipart body, once saved; null for other requests. */
  uploadedFiles: UploadedFile[] | null;
  /** The request's origin once worked out (`requestOrigin`): links, messages and the report all need it. */
  origin: string | null;
  /** Debug mode: whether the client may open the profiler, and so see debug output; null until asked. */
  admitted: boolean | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The kernel's state of this request; null until the kernel's first hook ran. */
    vigil: RequestState | null;
  }
}

/** The decoration's name, for `decorateRequest`. */
export const REQUEST_STATE = 'vigil';

/**
 * A request's state, all of its fields set at once so that every request's object has one
 * shape: the profiler's own field (`profile`) is declared in `profiler/request-profile.ts`.
 */
export function newRequestState(serverHost: string): RequestState {
  return { serverHost, token: null, profile: null, uploadedFiles: null, origin: null, admitted: null };
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
