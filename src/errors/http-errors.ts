/**
 * Errors that carry their HTTP status, headers and a stable code, so that the one error
 * pipeline can render every failure the same way (Symfony's HttpException family). The
 * kernel's own codes and their statuses are the catalogue's (`error-codes.ts`).
 */
import { STATUS_CODES } from 'node:http';
import { classNameOf, messageOf } from './error-chain.js';
import { statusOf, type CodeOfStatus, type VigilErrorCode } from './error-codes.js';
import type { ErrorHints } from './error-hints.js';
import { isError, ThrownValueError } from './thrown-value.js';
import { SharedInstall } from '../utils/shared-install.js';

export interface HttpErrorOptions {
  headers?: Record<string, string>;
  cause?: unknown;
  /** False: no stack capture, for a raiser that gives the error frames it already knows (`adoptFrames`). */
  capture?: boolean;
  /** What helps fix the request, computed when a debug answer or a report first asks (see {@link HttpError.hints}). */
  hints?: (() => ErrorHints) | undefined;
  /**
   * What decided the answer, where no line of the project's source did (`routing: …`): the
   * debug page and the report name it in place of the raise site.
   */
  raisedBy?: string | undefined;
}

/** Marks the HttpErrors of every copy of the kernel: a routes module may load a copy of its own. */
const HTTP_ERROR_BRAND = Symbol.for('vigil.HttpError');

/** Debug instances open in the process: while any is, client errors capture their stack. */
const clientTraces = new SharedInstall();

/**
 * Client errors (4xx) capture a stack trace from now until the returned release is called:
 * a debug instance holds this while open, since its pages show the trace. Production shows
 * none, and a capture costs several microseconds on every 404; a production instance's
 * own 404s and 405s are raised without one even beside a debug instance.
 */
export function traceClientErrors(): () => void {
  return clientTraces.hold();
}

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly raisedBy: string | undefined;
  #hints: (() => ErrorHints) | ErrorHints | undefined;

  /** An error of the catalogue: its status is the code's. */
  constructor(code: VigilErrorCode, message: string, options?: HttpErrorOptions);
  /** An application's own error, with its status and code. */
  constructor(status: number, message: string, code: string, options?: HttpErrorOptions);
  constructor(
    statusOrCode: number | VigilErrorCode,
    message: string,
    codeOrOptions?: string | HttpErrorOptions,
    maybeOptions?: HttpErrorOptions,
  ) {
    const [status, code, options = {}] =
      typeof statusOrCode === 'number'
        ? [statusOrCode, codeOrOptions as string, maybeOptions]
        : [statusOf(statusOrCode), statusOrCode, codeOrOptions as HttpErrorOptions | undefined];
    // One capture, started where the error was raised rather than in these constructors.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = limit;
    if (options.capture !== false && (status >= 500 || clientTraces.held)) Error.captureStackTrace(this, new.target);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = options.headers ?? {};
    this.raisedBy = options.raisedBy;
    this.#hints = options.hints;
  }

  /** The hints of a debug answer: computed once, the first time the page or the report asks. */
  get hints(): ErrorHints | undefined {
    if (typeof this.#hints === 'function') this.#hints = this.#hints();
    return this.#hints;
  }
}
Object.defineProperty(HttpError.prototype, HTTP_ERROR_BRAND, { value: true });

/** No route matches the path. */
export class NotFoundHttpError extends HttpError {
  constructor(message: string, options?: HttpErrorOptions) {
    super('VIGIL_ERR_NOT_FOUND', message, options);
  }
}

/** A route matches the path but not the method; `Allow` lists the methods that would. */
export class MethodNotAllowedHttpError extends HttpError {
  constructor(
    readonly allowedMethods: readonly string[],
    message: string,
    options?: HttpErrorOptions,
  ) {
    super('VIGIL_ERR_METHOD_NOT_ALLOWED', message, {
      ...options,
      headers: { ...options?.headers, allow: allowedMethods.join(', ') },
    });
  }
}

/** The request is malformed in a way the client can fix. */
export class BadRequestHttpError extends HttpError {
  constructor(message: string, code: CodeOfStatus<400> = 'VIGIL_ERR_BAD_REQUEST', options?: HttpErrorOptions) {
    super(code, message, options);
  }
}

/** The request target is longer than the kernel accepts. */
export class UriTooLongHttpError extends HttpError {
  constructor(message: string, options?: HttpErrorOptions) {
    super('VIGIL_ERR_URI_TOO_LONG', message, options);
  }
}

/**
 * The request does not match its route's JSON schema: Fastify's validation error, carried
 * through the pipeline with its details (`validation`, `validationContext`).
 */
export class SchemaValidationHttpError extends HttpError {
  constructor(
    message: string,
    readonly validation: unknown,
    readonly validationContext: string | undefined,
    options?: HttpErrorOptions,
  ) {
    super('VIGIL_ERR_VALIDATION', message, options);
  }
}

/** The service cannot answer this now, for a reason that passes: `Retry-After` says when to ask again. */
export class ServiceUnavailableHttpError extends HttpError {
  constructor(message: string, code: CodeOfStatus<503>, retryAfterSeconds: number, options?: HttpErrorOptions) {
    super(503, message, code, {
      ...options,
      headers: { ...options?.headers, 'retry-after': String(retryAfterSeconds) },
    });
  }
}

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown Status';
}

/** What the pipeline needs to know of any thrown value. */
interface ErrorDescription {
  status: number;
  code: string;
  message: string;
  className: string;
  headers: Readonly<Record<string, string>>;
  error: Error;
}

/**
 * Reads status, code and headers off anything thrown: our HttpErrors, Fastify's errors
 * (which carry `statusCode` and an `FST_ERR_*` code), or a plain throw (500). A value that
 * is no Error, or an error whose properties throw, is described without running its code.
 */
export function describeError(thrown: unknown): ErrorDescription {
  const error = isError(thrown) ? thrown : new ThrownValueError(thrown);
  if (error instanceof HttpError) {
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      className: error.name,
      headers: error.headers,
      error,
    };
  }
  const { status, code, headers } = httpDetailsOf(error);
  return {
    status: status ?? 500,
    code: code ?? 'VIGIL_ERR_INTERNAL',
    message: messageOf(error),
    className: classNameOf(error),
    headers: headers ?? {},
    error,
  };
}

/** What a debug answer shows of an error besides its trace: its hints, and what decided the answer. */
interface DebugAids {
  hints: ErrorHints | undefined;
  raisedBy: string | undefined;
}

/** The aids an HttpError of any copy of the kernel carries; none for other errors, or where reading throws. */
export function debugAidsOf(error: Error): DebugAids {
  try {
    if ((error as unknown as Record<symbol, unknown>)[HTTP_ERROR_BRAND] !== true) return NO_AIDS;
    const { hints, raisedBy } = error as HttpError;
    return {
      hints: typeof hints === 'object' && hints !== null ? hints : undefined,
      raisedBy: typeof raisedBy === 'string' ? raisedBy : undefined,
    };
  } catch {
    return NO_AIDS;
  }
}

const NO_AIDS: DebugAids = { hints: undefined, raisedBy: undefined };

/** What an error says of its answer, where it says it in a form the pipeline takes. */
interface HttpDetails {
  status: number | undefined;
  code: string | undefined;
  headers: Record<string, string> | undefined;
}

/**
 * Status, code and headers of an error that is not this copy's HttpError: an HttpError of
 * another copy gives all three; NestJS's HttpException its `status`; any other error only its
 * `statusCode` and `code` (Fastify's convention), never headers, which may be an upstream's (`set-cookie`). None where reading throws.
 */
export function httpDetailsOf(error: Error): HttpDetails {
  try {
    const { status, statusCode, code, headers, getStatus, getResponse } = error as {
      status?: unknown;
      statusCode?: unknown;
      code?: unknown;
      headers?: unknown;
      getStatus?: unknown;
      getResponse?: unknown;
    };
    const branded = (error as unknown as Record<symbol, unknown>)[HTTP_ERROR_BRAND] === true;
    // NestJS's HttpException keeps its status in `status` (what its `getStatus()` returns, not called here).
    const nestException = typeof getStatus === 'function' && typeof getResponse === 'function';
    const httpStatus = branded || nestException ? status : statusCode;
    return {
      status: typeof httpStatus === 'number' && httpStatus >= 400 && httpStatus <= 599 ? httpStatus : undefined,
      code: typeof code === 'string' ? code : undefined,
      headers:
        branded && headers && typeof headers === 'object'
          ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]))
          : undefined,
    };
  } catch {
    return { status: undefined, code: undefined, headers: undefined };
  }
}
