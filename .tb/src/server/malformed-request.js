import { exceptionHeaders } from "../debug/exception-headers.js";
import { raiseSite } from "../debug/stack-trace.js";
import { BadRequestHttpError, HttpError, reasonPhrase, UriTooLongHttpError } from "../errors/http-errors.js";
import { httpDate } from "./http-date.js";
const MAX_URL_LENGTH = 8 * 1024;
const MAX_HEADERS_SIZE = 16 * 1024;
const PARSER_MAX_HEADER_SIZE = 64 * 1024;
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;
function refusedHead(request) {
  const target = request.raw.url ?? "";
  if (target.length > MAX_URL_LENGTH) {
    return new UriTooLongHttpError(`The request target is ${target.length} bytes long; the limit is ${MAX_URL_LENGTH}`);
  }
  const raw = request.raw.rawHeaders;
  let size = 0;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    size += name.length + raw[i + 1].length + 4;
    if (name.length === 4 && name.toLowerCase() === "host") hosts++;
  }
  if (size > MAX_HEADERS_SIZE) {
    return new HttpError(431, `The request headers are ${size} bytes long; the limit is ${MAX_HEADERS_SIZE}`, "VIGIL_ERR_HEADERS_TOO_LARGE");
  }
  if (hosts > 1) return new BadRequestHttpError(`The request has ${hosts} Host headers; it must have one`, "VIGIL_ERR_INVALID_HOST");
  const http10 = request.raw.httpVersionMajor === 1 && request.raw.httpVersionMinor === 0;
  if (hosts === 0 && !http10) return new BadRequestHttpError(`The request has no Host header; HTTP/${request.raw.httpVersion} requires one`, "VIGIL_ERR_INVALID_HOST");
  const expect = request.headers.expect;
  if (expect !== void 0 && !http10 && !CONTINUE.test(expect)) {
    return new HttpError(417, `The expectation "${expect}" cannot be met: only 100-continue is supported`, "VIGIL_ERR_EXPECTATION_FAILED");
  }
  return void 0;
}
const FRAMING_REASONS = /* @__PURE__ */ new Map([
  ["Duplicate Content-Length", "the Content-Length header is sent more than once"],
  ["Content-Length can't be present with Transfer-Encoding", "Content-Length and Transfer-Encoding cannot be sent together"],
  ["Transfer-Encoding can't be present with Content-Length", "Content-Length and Transfer-Encoding cannot be sent together"]
]);
const FRAMING = {
  HPE_INVALID_CHUNK_SIZE: "the chunked body has an invalid chunk size",
  HPE_INVALID_CONTENT_LENGTH: "the Content-Length header is not a valid length",
  HPE_UNEXPECTED_CONTENT_LENGTH: "Content-Length and Transfer-Encoding cannot be sent together",
  HPE_INVALID_TRANSFER_ENCODING: "the Transfer-Encoding header is invalid",
  HPE_INVALID_METHOD: "the method is not a valid HTTP method",
  HPE_INVALID_URL: "the request target is not a valid URL",
  HPE_INVALID_VERSION: "the HTTP version is invalid",
  HPE_INVALID_HEADER_TOKEN: "a header name contains an invalid character",
  HPE_INVALID_CONSTANT: "the request is not HTTP/1.1",
  HPE_LF_EXPECTED: "a line does not end with CRLF",
  HPE_CR_EXPECTED: "a line does not end with CRLF",
  HPE_STRICT: "the request breaks the HTTP syntax"
};
const answered = /* @__PURE__ */ new WeakSet();
function answerClientError({ debug }) {
  return function onClientError(thrown, socket) {
    const error = thrown;
    if (error.code === "ECONNRESET" || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const refusal = describe(error);
    this.log.debug({ err: error }, `malformed request: ${refusal.message}`);
    afterCompleteRequests(socket, (canAnswer) => {
      if (canAnswer && socket.writable) socket.write(rawResponse(refusal, debug));
      socket.end();
      setTimeout(() => socket.destroy(), 1e3).unref();
    });
  };
}
function afterCompleteRequests(socket, then) {
  const inFlight = socket._httpMessage;
  if (!inFlight || inFlight.writableFinished) return then(true);
  if (!inFlight.req?.complete) return then(!inFlight.headersSent);
  const next = () => {
    inFlight.off("finish", next);
    inFlight.off("close", next);
    if (!socket.destroyed) afterCompleteRequests(socket, then);
  };
  inFlight.once("finish", next);
  inFlight.once("close", next);
}
function describe(error) {
  if (error.code === "HPE_HEADER_OVERFLOW") {
    return new HttpError(431, `The request line and headers are larger than ${PARSER_MAX_HEADER_SIZE} bytes`, "VIGIL_ERR_HEADERS_TOO_LARGE");
  }
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return new HttpError(408, "The request was not received in time", "VIGIL_ERR_REQUEST_TIMEOUT");
  const problem = (error.reason && FRAMING_REASONS.get(error.reason)) ?? (error.code && FRAMING[error.code]) ?? `the request is malformed (${error.reason ?? error.message})`;
  return new HttpError(400, `Bad request: ${problem}`, "VIGIL_ERR_MALFORMED_REQUEST");
}
function rawResponse(error, debug) {
  const statusLine = `${error.status} ${reasonPhrase(error.status)}`;
  const body = debug ? `${statusLine}

${error.message}

${error.name} (${error.code})
` : `${statusLine}
`;
  const headers = {
    "content-type": "text/plain; charset=UTF-8",
    "content-length": String(Buffer.byteLength(body)),
    "cache-control": "no-cache, private",
    date: httpDate(),
    connection: "close",
    ...debug ? exceptionHeaders(error.message, raiseSite(error)) : {}
  };
  return `HTTP/1.1 ${statusLine}\r
${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r
`).join("")}\r
${body}`;
}
export {
  MAX_HEADERS_SIZE,
  MAX_URL_LENGTH,
  PARSER_MAX_HEADER_SIZE,
  answerClientError,
  refusedHead
};
//# sourceMappingURL=malformed-request.js.map
