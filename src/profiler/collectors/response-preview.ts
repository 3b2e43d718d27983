/**
 * A preview of the response body for its report, so that one sees what the application
 * answered: the start of a textual body, its secrets redacted. A binary, streamed or
 * compressed body, and the kernel's own error page, are only described.
 */
import { REDACTED, type Redactor } from '../redaction/redact.js';
import { cutMarker } from '../model/report-bounds.js';

/** Characters of a textual body kept (4 KiB of ASCII). */
export const PREVIEW_CHARS = 4096;
/** Bytes of a Buffer decoded to find the preview's characters: 4 bytes each at most in UTF-8. */
const DECODED_BYTES = PREVIEW_CHARS * 4;

export type ResponsePreview =
  | { kind: 'text'; text: string; size: number }
  | { kind: 'binary' | 'streamed' | 'compressed' | 'empty' | 'error-page'; size: number | null };

const TEXTUAL =
  /^(?:text\/|application\/(?:json|xml|x-www-form-urlencoded|javascript|ecmascript|x-ndjson)$)|\+(?:json|xml)$/;
const JSON_TYPE = /^application\/(?:json|x-ndjson)$|\+json$/;

/**
 * The first {@link PREVIEW_CHARS} characters of a textual body (text, HTML, JSON, XML, a
 * form), the values of credential-like JSON members redacted here and `name=value` secrets
 * by the report's own pass when it is encoded. A binary, streamed or compressed body is only
 * described, as is the kernel's own error page: the exception panel shows what it says, and
 * copying it into every 404's report was the dearest step of that hot path (bench/NOTES.md,
 * issue 16).
 *
 * `payload`: what was sent, as the onSend hooks saw it (a string, a Buffer, a stream or
 * nothing); `errorPage`: the error pipeline rendered it.
 */
export function responsePreview(
  payload: unknown,
  headers: Record<string, unknown>,
  redactor: Redactor,
  errorPage = false,
): ResponsePreview {
  if (errorPage) return { kind: 'error-page', size: declaredLength(headers) };
  if (payload === null || payload === undefined || payload === '') return { kind: 'empty', size: 0 };
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload))
    return { kind: 'streamed', size: declaredLength(headers) };
  // Fastify counted a string's bytes for Content-Length already: a long body is not counted twice.
  const size = typeof payload === 'string' ? (declaredLength(headers) ?? Buffer.byteLength(payload)) : payload.length;
  const encoding = String(headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') return { kind: 'compressed', size };
  const media = String(headers['content-type'] ?? '')
    .split(';', 1)[0]!
    .trim()
    .toLowerCase();
  if (!TEXTUAL.test(media)) return { kind: 'binary', size };
  const { head, cut } = typeof payload === 'string' ? stringHead(payload) : bufferHead(payload);
  // JSON is redacted as JSON whatever its type says (an API answering JSON as text/plain).
  const text = JSON_TYPE.test(media) || looksLikeJson(head) ? redactJsonMembers(head, redactor.isSecret) : head;
  return { kind: 'text', text: text + cut, size };
}

function declaredLength(headers: Record<string, unknown>): number | null {
  const declared = headers['content-length'];
  const length = Number(declared);
  return declared !== undefined && Number.isFinite(length) ? length : null;
}

function stringHead(text: string): { head: string; cut: string } {
  if (text.length <= PREVIEW_CHARS) return { head: text, cut: '' };
  const head = withoutSplitPair(text.slice(0, PREVIEW_CHARS));
  return { head, cut: cutMarker(text.length - head.length) };
}

function bufferHead(bytes: Buffer): { head: string; cut: string } {
  const decoded = bytes.subarray(0, DECODED_BYTES).toString('utf8');
  if (decoded.length <= PREVIEW_CHARS && bytes.length <= DECODED_BYTES) return { head: decoded, cut: '' };
  // Characters past the decoded part are not counted: the cut is said in bytes.
  const head = withoutSplitPair(decoded.slice(0, PREVIEW_CHARS)).replace(/\uFFFD$/, '');
  return { head, cut: cutMarker(bytes.length - Buffer.byteLength(head), 'bytes') };
}

function withoutSplitPair(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

/** True when `text` opens as a JSON object or array does. */
export function looksLikeJson(text: string): boolean {
  const first = /\S/.exec(text.slice(0, 64))?.[0];
  return first === '{' || first === '[';
}

/**
 * JSON text (whole, or cut anywhere) with the value of each member whose name is a secret
 * replaced, whatever it holds: a string, a number, or an object or array to its end.
 */
export function redactJsonMembers(text: string, isSecret: (name: string) => boolean): string {
  let out = '';
  let copied = 0;
  for (let i = text.indexOf('"'); i !== -1 && i < text.length; i = text.indexOf('"', i)) {
    const end = stringEnd(text, i);
    const colon = skipSpace(text, end);
    if (text[colon] !== ':' || !isSecret(memberName(text.slice(i, end)))) {
      i = end;
      continue;
    }
    const start = skipSpace(text, colon + 1);
    if (start >= text.length) break;
    out += `${text.slice(copied, start)}"${REDACTED}"`;
    copied = valueEnd(text, start);
    i = copied;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The index after the string opening at `start`, or the text's end when it was cut inside. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const char = text[i];
    if (char === '\\') i++;
    else if (char === '"') return i + 1;
  }
  return text.length;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && ' \t\r\n'.includes(text[at]!)) at++;
  return at;
}

function memberName(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, quoted.endsWith('"') && quoted.length > 1 ? -1 : undefined);
  }
}

/** The index after the value starting at `start`: a string, a nested object or array, or a scalar. */
function valueEnd(text: string, start: number): number {
  const first = text[start];
  if (first === '"') return stringEnd(text, start);
  if (first !== '{' && first !== '[') {
    let i = start;
    while (i < text.length && !',}] \t\r\n'.includes(text[i]!)) i++;
    return i;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (char === '"') i = stringEnd(text, i) - 1;
    else if (char === '{' || char === '[') depth++;
    else if ((char === '}' || char === ']') && --depth === 0) return i + 1;
  }
  return text.length;
}
