/**
 * What the kernel keeps on a request, in one typed object: `request.vigil`, declared here
 * and nowhere else. The first kernel hook gives each request its state ({@link requestStateHook});
 * a request answered before it ran (a hook of the application's that failed first) has none.
 *
 * @example
 * ```ts
 * const token = request.vigil?.token ?? null;
 * ```
 */
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { RequestScope } from './request-scope.js';

/**
 * When the request reached each stage, in `performance.now()` milliseconds. Stages a
 * request did not go through stay undefined (an unrouted request has no handler).
 */
export interface StageMarks {
  /** The profiler's first hook: the router has already chosen the route. */
  start: number;
  /** Matched routes: the body is about to be read. */
  parsing?: number | undefined;
  /** Matched routes: the handler is about to run. */
  handler?: number | undefined;
  /** An error reached the pipeline. */
  error?: number | undefined;
  /** The response is about to be written. */
  send?: number | undefined;
  /** The response was written (or the client went away). */
  end?: number | undefined;
}

/** What the profiler keeps about a request while it runs, until its report is written. */
export interface RequestProfile {
  token: string;
  /** Epoch milliseconds at arrival. */
  time: number;
  /** Client address, read at arrival: the socket may be gone when the report is built. */
  ip: string;
  marks: StageMarks;
  /** The error the pipeline rendered, if any. */
  error: Error | undefined;
  /** The client closed the connection before the response was written. */
  aborted: boolean;
  /** The response body as the profiler's onSend hook saw it (a string, a Buffer, a stream), before the toolbar's. */
  responseBody?: unknown;
  /** What the request's own code records while it runs: its log lines and spans. */
  scope: RequestScope;
  /** Per-collector scratch space filled while the request runs. */
  data: Record<string, unknown>;
}

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
  /** The report being gathered; null outside debug mode, for the profiler's pages, and once it is queued. */
  profile: RequestProfile | null;
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
