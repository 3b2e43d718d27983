/**
 * The errors the per-request limits raise: each carries its status and a stable code, and
 * words an operator knows from PHP, so the one error pipeline renders them like any other.
 */
import { HttpError, type HttpErrorOptions } from '../errors/http-errors.js';

/** The request body is over POST_MAX_SIZE, or over PARSED_BODY_MAX_SIZE for a parsed body (413). */
export class PayloadTooLargeHttpError extends HttpError {
  constructor(message: string, options?: HttpErrorOptions) {
    super('VIGIL_ERR_BODY_TOO_LARGE', message, options);
  }
}

/**
 * The client sent no byte of its body for BODY_TIMEOUT (408, as nginx's client_body_timeout),
 * or sent it under BODY_MIN_RATE on average (as Apache's mod_reqtimeout MinRate).
 */
export class RequestTimeoutHttpError extends HttpError {
  constructor(
    message: string,
    options?: HttpErrorOptions,
    code: 'VIGIL_ERR_BODY_TIMEOUT' | 'VIGIL_ERR_BODY_TOO_SLOW' = 'VIGIL_ERR_BODY_TIMEOUT',
  ) {
    super(code, message, options);
  }
}

/** One uploaded file is over UPLOAD_MAX_FILESIZE (413). */
export class UploadTooLargeHttpError extends HttpError {
  constructor(message: string, options?: HttpErrorOptions) {
    super('VIGIL_ERR_UPLOAD_TOO_LARGE', message, options);
  }
}

/** A multipart body carries more files than MAX_FILE_UPLOADS (413). */
export class TooManyUploadsHttpError extends HttpError {
  constructor(message: string, options?: HttpErrorOptions) {
    super('VIGIL_ERR_TOO_MANY_UPLOADS', message, options);
  }
}

/** The handler ran past MAX_EXECUTION_TIME (500, PHP's fatal error text). */
export class ExecutionTimeExceededError extends HttpError {
  constructor(readonly seconds: number) {
    // PHP's own wording, singular included: "of 1 second exceeded".
    super(
      'VIGIL_ERR_MAX_EXECUTION_TIME',
      `Maximum execution time of ${seconds} second${seconds === 1 ? '' : 's'} exceeded`,
    );
  }
}

/** The request used more memory than it may (500, PHP's fatal error text). */
export class MemoryExhaustedError extends HttpError {
  constructor(
    readonly limitBytes: number,
    options?: HttpErrorOptions,
  ) {
    super('VIGIL_ERR_MEMORY_LIMIT', `Allowed memory size of ${limitBytes} bytes exhausted`, options);
  }
}

/** The process is too close to its own heap limit to start more work (503, try again). */
export class HeapGuardHttpError extends HttpError {
  constructor(message: string) {
    super('VIGIL_ERR_HEAP_GUARD', message, { headers: { 'retry-after': '1' } });
  }
}
