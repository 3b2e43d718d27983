/**
 * Errors that carry their HTTP status, headers and a stable code, so that the one error
 * pipeline can render every failure the same way (Symfony's HttpException family).
 */
import { STATUS_CODES } from 'node:http';

export interface HttpErrorOptions {
  headers?: Record<string, string>;
  cause?: unknown;
}

export class HttpError extends Error {
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    options: HttpErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.headers = options.headers ?? {};
    // The trace starts where the error was raised, not in these constructors.
    Error.captureStackTrace(this, new.target);
  }
}

/** No route matches the path. */
export class NotFoundHttpError extends HttpError {
  constructor(message: string, options?: HttpErrorOptions) {
    super(404, message, 'VIGIL_ERR_NOT_FOUND', options);
  }
}

/** A route matches the path but not the method; `Allow` lists the methods that would. */
export class MethodNotAllowedHttpError extends HttpError {
  constructor(readonly allowedMethods: readonly string[], message: string, options?: HttpErrorOptions) {
    super(405, message, 'VIGIL_ERR_METHOD_NOT_ALLOWED', {
      ...options,
      headers: { ...options?.headers, allow: allowedMethods.join(', ') },
    });
  }
}

/** The request is malformed in a way the client can fix. */
export class BadRequestHttpError extends HttpError {
  constructor(message: string, code = 'VIGIL_ERR_BAD_REQUEST', options?: HttpErrorOptions) {
    super(400, message, code, options);
  }
}

/** The request target is longer than the kernel accepts. */
export class UriTooLongHttpError extends HttpError {
  constructor(message: string, options?: HttpErrorOptions) {
    super(414, message, 'VIGIL_ERR_URI_TOO_LONG', options);
  }
}

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown Status';
}

/** What the pipeline needs to know of any thrown value. */
export interface ErrorDescription {
  status: number;
  code: string;
  message: string;
  className: string;
  headers: Readonly<Record<string, string>>;
  error: Error;
}

/**
 * Reads status, code and headers off anything thrown: our HttpErrors, Fastify's errors
 * (which carry `statusCode` and an `FST_ERR_*` code), or a plain throw (500).
 */
export function describeError(thrown: unknown): ErrorDescription {
  const error = thrown instanceof Error ? thrown : new Error(`Non-error thrown: ${String(thrown)}`);
  if (error instanceof HttpError) {
    return { status: error.status, code: error.code, message: error.message, className: error.name, headers: error.headers, error };
  }
  const { statusCode, code } = error as { statusCode?: unknown; code?: unknown };
  const status = typeof statusCode === 'number' && statusCode >= 400 && statusCode <= 599 ? statusCode : 500;
  return {
    status,
    code: typeof code === 'string' ? code : 'VIGIL_ERR_INTERNAL',
    message: error.message,
    className: error.constructor?.name || error.name || 'Error',
    headers: {},
    error,
  };
}
