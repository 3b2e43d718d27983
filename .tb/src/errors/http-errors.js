import { STATUS_CODES } from "node:http";
class HttpError extends Error {
  /**
   * Whether client errors (4xx) capture a stack trace. Debug pages show it; production
   * never does, and a capture costs several microseconds on every 404.
   */
  static traceClientErrors = true;
  status;
  code;
  headers;
  constructor(status, message, code, options = {}) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message, options.cause === void 0 ? void 0 : { cause: options.cause });
    Error.stackTraceLimit = limit;
    if (status >= 500 || HttpError.traceClientErrors) Error.captureStackTrace(this, new.target);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = options.headers ?? {};
  }
}
class NotFoundHttpError extends HttpError {
  constructor(message, options) {
    super(404, message, "VIGIL_ERR_NOT_FOUND", options);
  }
}
class MethodNotAllowedHttpError extends HttpError {
  constructor(allowedMethods, message, options) {
    super(405, message, "VIGIL_ERR_METHOD_NOT_ALLOWED", {
      ...options,
      headers: { ...options?.headers, allow: allowedMethods.join(", ") }
    });
    this.allowedMethods = allowedMethods;
  }
  allowedMethods;
}
class BadRequestHttpError extends HttpError {
  constructor(message, code = "VIGIL_ERR_BAD_REQUEST", options) {
    super(400, message, code, options);
  }
}
class UriTooLongHttpError extends HttpError {
  constructor(message, options) {
    super(414, message, "VIGIL_ERR_URI_TOO_LONG", options);
  }
}
function reasonPhrase(status) {
  return STATUS_CODES[status] ?? "Unknown Status";
}
function describeError(thrown) {
  const error = thrown instanceof Error ? thrown : new Error(`Non-error thrown: ${String(thrown)}`);
  if (error instanceof HttpError) {
    return { status: error.status, code: error.code, message: error.message, className: error.name, headers: error.headers, error };
  }
  const { statusCode, code } = error;
  const status = typeof statusCode === "number" && statusCode >= 400 && statusCode <= 599 ? statusCode : 500;
  return {
    status,
    code: typeof code === "string" ? code : "VIGIL_ERR_INTERNAL",
    message: error.message,
    className: error.constructor?.name || error.name || "Error",
    headers: {},
    error
  };
}
export {
  BadRequestHttpError,
  HttpError,
  MethodNotAllowedHttpError,
  NotFoundHttpError,
  UriTooLongHttpError,
  describeError,
  reasonPhrase
};
//# sourceMappingURL=http-errors.js.map
