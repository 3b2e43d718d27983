/**
 * Malformed requests: those that parse but are too big, name their host twice or not at all, or expect
 * what the kernel cannot do are refused by {@link refusedHead} through the error pipeline; those Node's
 * parser refuses before there is a request get a short raw answer from {@link answerClientError}.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { exceptionHeaders } from '../debug/exception-headers.js';
import { raiseSite } from '../debug/stack-trace.js';
import type { FastifyRequest } from 'fastify';
import { BadRequestHttpError, HttpError, reasonPhrase, UriTooLongHttpError } from '../errors/http-errors.js';
import { httpDate } from '../http/http-date.js';

/** The longest request target (path and query) the kernel accepts, as Apache's LimitRequestLine. */
const MAX_URL_LENGTH = 8 * 1024;
/** The largest header block (names, values, separators) the kernel accepts. */
const MAX_HEADERS_SIZE = 16 * 1024;
/**
 * What Node's parser accepts (request line and headers), so that the limits above answer first. Past
 * it the parser answers 431 itself, as it cannot tell a long line from long headers.
 */
export const PARSER_MAX_HEADER_SIZE = 64 * 1024;

/** Node's test for a 100-continue expectation, which it answers itself (`_http_server.js`). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * A 414 or 431 for a request whose head is over the kernel's limits, a 400 for two Hosts
 * or none (HTTP/1.0 may omit it), a 417 for an Expect other than 100-continue (ignored in
 * HTTP/1.0, as RFC 9110 says), else undefined.
 */
export function refusedHead(request: FastifyRequest): HttpError | undefined {
  const target = request.raw.url ?? '';
  if (target.length > MAX_URL_LENGTH) {
    return new UriTooLongHttpError(`The request target is ${target.length} bytes long; the limit is ${MAX_URL_LENGTH}`);
  }
  const raw = request.raw.rawHeaders;
  let size = 0;
  let hosts = 0;
  // HTTP/2 names the host in its `:authority` pseudo-header, and a Host header is then optional.
  let authority = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    size += name.length + raw[i + 1]!.length + 4; // ": " and CRLF
    // Node keeps the first Host and drops the others: which one a proxy saw is anyone's guess.
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
    else if (name.length === 10 && name === ':authority') authority = true;
  }
  if (size > MAX_HEADERS_SIZE) {
    return new HttpError(
      'VIGIL_ERR_HEADERS_TOO_LARGE',
      `The request headers are ${size} bytes long; the limit is ${MAX_HEADERS_SIZE}`,
    );
  }
  if (hosts > 1)
    return new BadRequestHttpError(`The request has ${hosts} Host headers; it must have one`, 'VIGIL_ERR_INVALID_HOST');
  const http10 = request.raw.httpVersionMajor === 1 && request.raw.httpVersionMinor === 0;
  if (hosts === 0 && !http10 && !authority)
    return new BadRequestHttpError(
      `The request has no Host header; HTTP/${request.raw.httpVersion} requires one`,
      'VIGIL_ERR_INVALID_HOST',
    );
  const expect = request.headers.expect;
  if (expect !== undefined && !http10 && !CONTINUE.test(expect)) {
    return new HttpError(
      'VIGIL_ERR_EXPECTATION_FAILED',
      `The expectation "${expect}" cannot be met: only 100-continue is supported`,
    );
  }
  return undefined;
}

type ParserError = Error & { code?: string; reason?: string };

/** Parser errors whose code covers several problems, told apart by llhttp's reason. */
const FRAMING_REASONS = new Map([
  ['Duplicate Content-Length', 'the Content-Length header is sent more than once'],
  [
    "Content-Length can't be present with Transfer-Encoding",
    'Content-Length and Transfer-Encoding cannot be sent together',
  ],
  [
    "Transfer-Encoding can't be present with Content-Length",
    'Content-Length and Transfer-Encoding cannot be sent together',
  ],
]);

/** What Node's parser reports, in words a client can act on. */
const FRAMING: Record<string, string> = {
  HPE_INVALID_CHUNK_SIZE: 'the chunked body has an invalid chunk size',
  HPE_INVALID_CONTENT_LENGTH: 'the Content-Length header is not a valid length',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length and Transfer-Encoding cannot be sent together',
  HPE_INVALID_TRANSFER_ENCODING: 'the Transfer-Encoding header is invalid',
  HPE_INVALID_METHOD: 'the method is not a valid HTTP method',
  HPE_INVALID_URL: 'the request target is not a valid URL',
  HPE_INVALID_VERSION: 'the HTTP version is invalid',
  HPE_INVALID_HEADER_TOKEN: 'a header name contains an invalid character',
  HPE_INVALID_CONSTANT: 'the request is not HTTP/1.1',
  HPE_LF_EXPECTED: 'a line does not end with CRLF',
  HPE_CR_EXPECTED: 'a line does not end with CRLF',
  HPE_STRICT: 'the request breaks the HTTP syntax',
};

const answered = new WeakSet<Socket>();

/** The response Node is writing on a connection (later pipelined ones wait in its queue), and its request. */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/** Fastify's `clientErrorHandler`: called with the Fastify instance as `this`. */
/**
 * Answers, in the pipeline's words and headers as far as they apply, what Node's parser refused (a head
 * over its limit, broken framing), after the answers to the requests before it on the connection.
 * `debugFor`: in debug mode, whether the connection's peer may see debug output (it may open
 * the profiler); without it, every peer may.
 */
export function answerClientError({
  debug,
  debugFor,
}: {
  debug: boolean;
  debugFor?: (socket: Socket) => boolean;
}): (this: FastifyInstance, error: Error, socket: Socket) => void {
  return function onClientError(thrown, socket) {
    const error = thrown as ParserError;
    // A reset or a second error on a socket already answered: nothing left to say.
    if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const refusal = describe(error);
    this.log.debug({ err: error }, `malformed request: ${refusal.message}`);
    // Complete requests pipelined before the malformed one are answered first, in order.
    afterCompleteRequests(socket as HttpSocket, (canAnswer) => {
      if (canAnswer && socket.writable)
        socket.write(rawResponse(refusal, debug && (debugFor === undefined || debugFor(socket))));
      socket.end();
      // Give the answer a moment to leave before the connection goes; never wait on the client.
      setTimeout(() => socket.destroy(), 1000).unref();
    });
  };
}

/**
 * Calls `then` once the responses to complete requests on `socket` are written. A response
 * still waiting for its request's body is the malformed request's own: no body will come, so
 * it is answered at once, unless its headers are already out (an answer cannot be cut in two).
 */
function afterCompleteRequests(socket: HttpSocket, then: (canAnswer: boolean) => void): void {
  const inFlight = socket._httpMessage;
  if (!inFlight || inFlight.writableFinished) return then(true);
  if (!inFlight.req?.complete) return then(!inFlight.headersSent);
  const next = () => {
    inFlight.off('finish', next);
    inFlight.off('close', next);
    // Node hands the connection to the next queued response as this one finishes.
    if (!socket.destroyed) afterCompleteRequests(socket, then);
  };
  inFlight.once('finish', next);
  inFlight.once('close', next);
}

function describe(error: ParserError): HttpError {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // Node reports one overflow for the request line and the headers, and by 64 KB the
    // packet it choked on no longer shows which grew: the answer names both.
    return new HttpError(
      'VIGIL_ERR_HEADERS_TOO_LARGE',
      `The request line and headers are larger than ${PARSER_MAX_HEADER_SIZE} bytes`,
    );
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new HttpError('VIGIL_ERR_REQUEST_TIMEOUT', 'The request was not received in time');
  const problem =
    (error.reason && FRAMING_REASONS.get(error.reason)) ??
    (error.code && FRAMING[error.code]) ??
    `the request is malformed (${error.reason ?? error.message})`;
  return new HttpError('VIGIL_ERR_MALFORMED_REQUEST', `Bad request: ${problem}`);
}

function rawResponse(error: HttpError, debug: boolean): string {
  const statusLine = `${error.status} ${reasonPhrase(error.status)}`;
  const body = debug ? `${statusLine}\n\n${error.message}\n\n${error.name} (${error.code})\n` : `${statusLine}\n`;
  const headers: Record<string, string> = {
    'content-type': 'text/plain; charset=UTF-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-cache, private',
    date: httpDate(),
    connection: 'close',
    ...(debug ? exceptionHeaders(error.message, raiseSite(error)) : {}),
  };
  return `HTTP/1.1 ${statusLine}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n${body}`;
}
