/**
 * The fuzzer's wire: one case's bytes sent on a fresh raw TLS connection, and a strict
 * reader of what came back (status line, headers, a body framed by Content-Length or by
 * chunks), so that a malformed answer is seen as malformed rather than smoothed over.
 */
import { connect } from 'node:tls';

export interface Target {
  port: number;
  ca: string | undefined;
}

export interface Exchange {
  received: Buffer;
  /** The server ended or reset the connection (as opposed to us closing it). */
  closedByServer: boolean;
  /** The guard ran out before the expected answers or the close came: the service hangs on this case. */
  timedOut: boolean;
  /** A socket error before any byte of an answer (TLS failure, a reset at once). */
  error: string | undefined;
  ms: number;
}

export interface SendOptions {
  /** How many answers make the exchange complete (one per request sent). */
  answers: number;
  /** Methods of the requests sent, in order: a HEAD's answer has no body. */
  methods: readonly string[];
  /** Send the TLS close_notify after the bytes: the server then reads an end of stream. */
  halfClose?: boolean;
  /** Read on after the answers until the server closes (it must: the bytes end in something that is no request). */
  untilClose?: boolean;
  /** Hang guard: after this long without the expected answers the case is a hang. */
  guardMs: number;
}

/** Sends `chunks` (written one by one) and reads until the expected answers are complete or the server closes. */
export function exchange(target: Target, chunks: readonly Buffer[], options: SendOptions): Promise<Exchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    let settled = false;
    let closedByServer = false;
    let error: string | undefined;
    const socket = connect({ host: 'localhost', port: target.port, ca: target.ca, servername: 'localhost' }, () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.halfClose) socket.end();
    });
    const finish = (timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      socket.destroy();
      resolve({ received: Buffer.concat(received), closedByServer, timedOut, error, ms: performance.now() - started });
    };
    const guard = setTimeout(() => finish(true), options.guardMs);
    socket.on('data', (data: Buffer) => {
      received.push(data);
      const parsed = parseResponses(Buffer.concat(received), options.methods, false);
      if (!options.untilClose && parsed.responses.length >= options.answers) finish(false);
    });
    socket.on('end', () => {
      closedByServer = true;
      finish(false);
    });
    socket.on('error', (thrown: NodeJS.ErrnoException) => {
      closedByServer = true;
      if (received.length === 0) error = thrown.code ?? thrown.message;
      finish(false);
    });
    socket.on('close', () => {
      closedByServer = true;
      finish(false);
    });
  });
}

export interface ParsedResponse {
  status: number;
  reason: string;
  /** Header names as sent, in order. */
  rawHeaders: Array<[string, string]>;
  /** Lower-case name → values. */
  headers: Map<string, string[]>;
  body: Buffer;
  /** The body ran to the end of the connection (no Content-Length, not chunked). */
  delimitedByClose: boolean;
}

export interface ParsedAnswer {
  responses: ParsedResponse[];
  /** Why the bytes after the last complete response are not a response; undefined when none are left. */
  problem: string | undefined;
}

const STATUS_LINE = /^HTTP\/1\.1 ([1-5]\d\d) ([\t \x21-\x7e\x80-\xff]*)$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t \x21-\x7e\x80-\xff]*$/;

/**
 * Reads complete HTTP/1.1 responses off `bytes`. `closed`: the connection has ended, so a
 * body without framing runs to here; otherwise an unfinished tail is simply incomplete.
 */
export function parseResponses(bytes: Buffer, methods: readonly string[], closed: boolean): ParsedAnswer {
  const responses: ParsedResponse[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const head = bytes.indexOf('\r\n\r\n', offset, 'latin1');
    if (head === -1) return { responses, problem: closed ? 'the head of an answer is cut short' : 'incomplete' };
    const lines = bytes.toString('latin1', offset, head).split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) return { responses, problem: `not a status line: ${JSON.stringify(lines[0]!.slice(0, 80))}` };
    const rawHeaders: Array<[string, string]> = [];
    const headers = new Map<string, string[]>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = colon === -1 ? '' : line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^[\t ]+|[\t ]+$/g, '');
      if (!TOKEN.test(name) || !FIELD_VALUE.test(value))
        return { responses, problem: `not a header line: ${JSON.stringify(line.slice(0, 80))}` };
      rawHeaders.push([name, value]);
      const lower = name.toLowerCase();
      headers.set(lower, [...(headers.get(lower) ?? []), value]);
    }
    const code = Number(status[1]);
    const method = methods[responses.length] ?? 'GET';
    let start = head + 4;
    const framed = frameBody(bytes, start, headers, code, method, closed);
    if ('problem' in framed) return { responses, problem: framed.problem };
    if (code >= 200 || code === 101) {
      responses.push({
        status: code,
        reason: status[2]!,
        rawHeaders,
        headers,
        body: framed.body,
        delimitedByClose: framed.byClose,
      });
    }
    start = framed.end;
    offset = start;
  }
  return { responses, problem: undefined };
}

type Framed = { body: Buffer; end: number; byClose: boolean } | { problem: string };

function frameBody(
  bytes: Buffer,
  start: number,
  headers: Map<string, string[]>,
  code: number,
  method: string,
  closed: boolean,
): Framed {
  const none = { body: Buffer.alloc(0), end: start, byClose: false };
  if (code < 200 || code === 204 || code === 304) return none;
  const encoding = headers.get('transfer-encoding');
  const lengths = headers.get('content-length');
  if (encoding && lengths) return { problem: 'both Transfer-Encoding and Content-Length' };
  if (method === 'HEAD') return none;
  if (encoding) {
    if (encoding.join(',').trim().toLowerCase() !== 'chunked')
      return { problem: `unknown Transfer-Encoding ${encoding.join(',')}` };
    return readChunks(bytes, start, closed);
  }
  if (lengths) {
    if (lengths.length > 1 || !/^\d{1,15}$/.test(lengths[0]!))
      return { problem: `bad Content-Length ${lengths.join(', ')}` };
    const end = start + Number(lengths[0]);
    if (end > bytes.length)
      return {
        problem: closed ? `the body is cut short (${bytes.length - start} of ${lengths[0]} bytes)` : 'incomplete',
      };
    return { body: bytes.subarray(start, end), end, byClose: false };
  }
  // No framing: the body is everything until the server closes.
  if (!closed) return { problem: 'incomplete' };
  return { body: bytes.subarray(start), end: bytes.length, byClose: true };
}

function readChunks(bytes: Buffer, start: number, closed: boolean): Framed {
  const parts: Buffer[] = [];
  let offset = start;
  const cut = { problem: closed ? 'the chunked body is cut short' : 'incomplete' };
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset, 'latin1');
    if (lineEnd === -1) return cut;
    const sizeText = bytes.toString('latin1', offset, lineEnd).split(';')[0]!;
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) return { problem: `bad chunk size ${JSON.stringify(sizeText)}` };
    const size = parseInt(sizeText, 16);
    offset = lineEnd + 2;
    if (size === 0) {
      // Trailer fields, then the empty line.
      for (;;) {
        const end = bytes.indexOf('\r\n', offset, 'latin1');
        if (end === -1) return cut;
        const empty = end === offset;
        offset = end + 2;
        if (empty) return { body: Buffer.concat(parts), end: offset, byClose: false };
      }
    }
    if (offset + size + 2 > bytes.length) return cut;
    parts.push(bytes.subarray(offset, offset + size));
    if (bytes.toString('latin1', offset + size, offset + size + 2) !== '\r\n')
      return { problem: 'a chunk does not end with CRLF' };
    offset += size + 2;
  }
}
