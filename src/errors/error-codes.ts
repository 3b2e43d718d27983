/**
 * Every error code the kernel raises, with its HTTP status and what it means, in the
 * manner of Fastify's `lib/errors.js`. A throw site names its code from here (the type
 * admits no other) and takes its status from it; the table of docs/error-codes.md lists the
 * same entries, in this order (`test/structure/error-codes.test.ts` compares them).
 */

interface ErrorCodeEntry {
  readonly status: number;
  readonly meaning: string;
}

/**
 * Each code's status and meaning.
 *
 * @example
 * ```ts
 * throw new HttpError('VIGIL_ERR_STOPPING', 'The service is stopping'); // a 503
 * ```
 */
export const ERROR_CODES = {
  // routing
  VIGIL_ERR_NOT_FOUND: { status: 404, meaning: 'No route matches the path (or the client may not open the profiler).' },
  VIGIL_ERR_METHOD_NOT_ALLOWED: {
    status: 405,
    meaning:
      'A route matches the path but not the method; `Allow` lists those that would. Also CONNECT, and a CORS preflight asking for a method outside `CORS_ALLOW_METHODS`.',
  },
  VIGIL_ERR_VALIDATION: {
    status: 400,
    meaning: "The request does not match its route's JSON schema; the raise site is the route's declaration.",
  },
  // the request head and its host
  VIGIL_ERR_MALFORMED_REQUEST: {
    status: 400,
    meaning: "Node's parser refused the request (broken framing, an invalid method or header name).",
  },
  VIGIL_ERR_URI_TOO_LONG: { status: 414, meaning: 'The request target is longer than 8 KB.' },
  VIGIL_ERR_HEADERS_TOO_LARGE: {
    status: 431,
    meaning: 'The request headers are larger than 16 KB (or the request line and headers than 64 KB).',
  },
  VIGIL_ERR_REQUEST_TIMEOUT: { status: 408, meaning: 'The request head was not received in time.' },
  VIGIL_ERR_EXPECTATION_FAILED: { status: 417, meaning: 'An `Expect` other than `100-continue`.' },
  VIGIL_ERR_INVALID_HOST: {
    status: 400,
    meaning: 'The `Host` is missing (HTTP/1.1), sent twice, or not a valid host.',
  },
  VIGIL_ERR_UNTRUSTED_HOST: { status: 400, meaning: 'The host matches none of `TRUSTED_HOSTS`.' },
  VIGIL_ERR_CORS_HEADER: {
    status: 400,
    meaning: 'A CORS preflight asks for a request header outside `CORS_ALLOW_HEADERS`.',
  },
  // bodies and limits
  VIGIL_ERR_BAD_REQUEST: { status: 400, meaning: 'The request is malformed in a way the client can fix.' },
  VIGIL_ERR_BODY_TOO_LARGE: {
    status: 413,
    meaning:
      "The body is over `POST_MAX_SIZE`, or a JSON, form or text body, or a multipart body's text fields together, over `PARSED_BODY_MAX_SIZE`.",
  },
  VIGIL_ERR_BODY_TIMEOUT: { status: 408, meaning: 'The client sent no byte of its body for `BODY_TIMEOUT`.' },
  VIGIL_ERR_BODY_TOO_SLOW: { status: 408, meaning: 'The body averaged under `BODY_MIN_RATE` after its first 10 s.' },
  VIGIL_ERR_JSON_TOO_DEEP: { status: 400, meaning: 'The JSON body nests more than 1,000 levels deep.' },
  VIGIL_ERR_BAD_MULTIPART: { status: 400, meaning: 'The multipart body is malformed.' },
  VIGIL_ERR_UPLOAD_TOO_LARGE: {
    status: 413,
    meaning: 'An uploaded file, or any part of a multipart body, is over `UPLOAD_MAX_FILESIZE`.',
  },
  VIGIL_ERR_TOO_MANY_UPLOADS: { status: 413, meaning: 'A multipart body carries more files than `MAX_FILE_UPLOADS`.' },
  VIGIL_ERR_MAX_EXECUTION_TIME: { status: 500, meaning: 'The handler ran past `MAX_EXECUTION_TIME`.' },
  VIGIL_ERR_MEMORY_LIMIT: { status: 500, meaning: 'An isolated request used more than `MEMORY_LIMIT`.' },
  VIGIL_ERR_HEAP_GUARD: {
    status: 503,
    meaning: 'The process is too close to its heap limit to start more work (`Retry-After: 1`).',
  },
  VIGIL_ERR_ISOLATION_INPUT: {
    status: 500,
    meaning: 'The request could not be copied to its isolated worker process.',
  },
  // the service and the profiler
  VIGIL_ERR_STOPPING: { status: 503, meaning: 'The service is stopping: an isolated request was not started.' },
  VIGIL_ERR_PROFILER_PANEL: {
    status: 400,
    meaning: 'A report page asked for a panel the report does not have, or for two.',
  },
  VIGIL_ERR_PROFILER_SEARCH: { status: 400, meaning: 'A profiler search filter is not valid.' },
  VIGIL_ERR_PROFILER_HOST: {
    status: 403,
    meaning:
      'A profiler page asked for under a host name that is not loopback (`localhost`, `127.0.0.1`, `[::1]`), `HOST` or in `TRUSTED_HOSTS`: DNS rebinding.',
  },
  VIGIL_ERR_PROFILER_CROSS_SITE: {
    status: 403,
    meaning:
      'A profiler page asked for by a page of another site (`Sec-Fetch-Site: cross-site`): an `<img>` or a form elsewhere cannot make the profiler work.',
  },
  VIGIL_ERR_PROFILER_LOGIN_THROTTLED: {
    status: 429,
    meaning:
      "The production profiler's login page, asked for from an address with too many failed attempts at `PROFILER_SECRET` (`Retry-After`); every other profiler page answers such an address with the ordinary 404.",
  },
  VIGIL_ERR_REPORT_STORE_UNAVAILABLE: {
    status: 503,
    meaning:
      'A profiler page could not reach the report store (PostgreSQL down); new reports wait in the write queue (`Retry-After: 5`).',
  },
  VIGIL_ERR_INTERNAL: {
    status: 500,
    meaning: 'Anything else thrown without a status: a bug, or a failure the handler did not expect.',
  },
} as const satisfies Record<`VIGIL_ERR_${string}`, ErrorCodeEntry>;

export type VigilErrorCode = keyof typeof ERROR_CODES;

/** The codes of one status: `CodeOfStatus<400>` are the Bad Request codes. */
export type CodeOfStatus<Status extends number> = {
  [Code in VigilErrorCode]: (typeof ERROR_CODES)[Code]['status'] extends Status ? Code : never;
}[VigilErrorCode];

export function statusOf(code: VigilErrorCode): number {
  return ERROR_CODES[code].status;
}
