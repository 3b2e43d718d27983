/**
 * Request bytes as the fuzzer writes them: a request line, headers in the given order and
 * a body, in latin1 "byte strings" so that any byte (NUL, bare CR, 0xFF) can be placed.
 */

/** The UTF-8 bytes of `text` as a latin1 byte string, for placing real UTF-8 in a request. */
export function utf8(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

export interface RequestParts {
  method?: string;
  target?: string;
  version?: string;
  /** In order; a Host header is added first unless `host` is false or one is listed. */
  headers?: ReadonlyArray<readonly [string, string]>;
  /** Host added when the headers list none; false: send no Host at all. */
  host?: string | false;
  body?: string;
  /** Add Content-Length for the body (unless listed, or Transfer-Encoding is listed). Default true. */
  length?: boolean;
  /** Line ending of the request line and headers. */
  eol?: string;
}

/** The request as bytes: `METHOD target VERSION`, headers, an empty line, the body. */
export function requestBytes(parts: RequestParts): string {
  const {
    method = 'GET',
    target = '/',
    version = 'HTTP/1.1',
    host = 'localhost',
    body = '',
    length = true,
    eol = '\r\n',
  } = parts;
  const headers = [...(parts.headers ?? [])];
  const listed = (name: string) => headers.some(([header]) => header.toLowerCase() === name);
  if (host !== false && !listed('host')) headers.unshift(['Host', host]);
  if (length && body !== '' && !listed('content-length') && !listed('transfer-encoding'))
    headers.push(['Content-Length', String(body.length)]);
  const head = [`${method} ${target} ${version}`, ...headers.map(([name, value]) => `${name}: ${value}`)];
  return `${head.join(eol)}${eol}${eol}${body}`;
}

/** A `multipart/form-data` body; each part's disposition parameters are written as given. */
export function multipartBody(
  boundary: string,
  parts: ReadonlyArray<{ disposition: string; type?: string; content: string }>,
  close = true,
): string {
  let body = '';
  for (const part of parts) {
    body += `--${boundary}\r\nContent-Disposition: ${part.disposition}\r\n`;
    if (part.type !== undefined) body += `Content-Type: ${part.type}\r\n`;
    body += `\r\n${part.content}\r\n`;
  }
  return close ? `${body}--${boundary}--\r\n` : body;
}

/** A body in chunked framing, each chunk with its size in hex. */
export function chunked(pieces: readonly string[]): string {
  return `${pieces.map((piece) => `${piece.length.toString(16)}\r\n${piece}\r\n`).join('')}0\r\n\r\n`;
}
