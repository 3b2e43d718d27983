import { HttpError } from "../errors/http-errors.js";
class PayloadTooLargeHttpError extends HttpError {
  constructor(message, options) {
    super(413, message, "VIGIL_ERR_BODY_TOO_LARGE", options);
  }
}
class RequestTimeoutHttpError extends HttpError {
  constructor(message, options) {
    super(408, message, "VIGIL_ERR_BODY_TIMEOUT", options);
  }
}
class UploadTooLargeHttpError extends HttpError {
  constructor(message, options) {
    super(413, message, "VIGIL_ERR_UPLOAD_TOO_LARGE", options);
  }
}
class ExecutionTimeExceededError extends HttpError {
  constructor(seconds) {
    super(500, `Maximum execution time of ${seconds} second${seconds === 1 ? "" : "s"} exceeded`, "VIGIL_ERR_MAX_EXECUTION_TIME");
    this.seconds = seconds;
  }
  seconds;
}
class MemoryExhaustedError extends HttpError {
  constructor(limitBytes, options) {
    super(500, `Allowed memory size of ${limitBytes} bytes exhausted`, "VIGIL_ERR_MEMORY_LIMIT", options);
    this.limitBytes = limitBytes;
  }
  limitBytes;
}
class HeapGuardHttpError extends HttpError {
  constructor(message) {
    super(503, message, "VIGIL_ERR_HEAP_GUARD", { headers: { "retry-after": "1" } });
  }
}
export {
  ExecutionTimeExceededError,
  HeapGuardHttpError,
  MemoryExhaustedError,
  PayloadTooLargeHttpError,
  RequestTimeoutHttpError,
  UploadTooLargeHttpError
};
//# sourceMappingURL=limit-errors.js.map
