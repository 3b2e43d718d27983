/**
 * What every answer must be, whatever was sent. Issue 10 asks for five counts to be zero:
 * crashes, unexpected 5xx, unescaped reflections, injected headers, unparseable answers.
 * Four more are counted because the issue's items need them: errors outside the
 * pipeline (item 7), leaks (items 1 and 5), unbounded reports (item 8) and contract
 * breaks (a case's own rule, e.g. two Host headers are a 400).
 *
 * Answered, precisely: a case must get `answers` complete answers (a status line, headers
 * and a body framed by Content-Length or chunks, or by the close) before the connection
 * ends, and nothing after them that is not an answer. One answer per request sent, the
 * kernel's or its parser's; bytes that cannot be a request (a bad method, bare LF, a
 * broken chunk, an end of stream in the middle of a request) still get one: Node's parser
 * refuses them before there is a request, and the kernel then sends a 400 (431 for an
 * oversized head) with `Connection: close`. The one exception: such bytes pipelined after
 * a complete request, whose answer is under way or sent; that answer must arrive whole,
 * and then a 400 or only the close (as Node itself does) ends the connection. A connection
 * closed with no answer to a request (as Node does with CONNECT, having no listener) is a
 * failure, and so is a case still unanswered when the hang guard runs out.
 *
 * Through the pipeline, precisely: every 4xx and 5xx carries `Cache-Control: no-cache,
 * private`. In debug mode it also carries `x-debug-exception` and `x-debug-token`, unless
 * it is the parser's raw refusal (`Connection: close`, text/plain, 400/408/413/414/431:
 * there was no request to give a token to, nor headers naming a client behind a trusted
 * proxy, so `x-debug-exception` may go too) or a profiler page (not profiled; no token).
 * Without debug, no `x-debug-*` header, and no body says anything internal or from the
 * request; the same in debug mode for a client the profiler does not admit (an outsider
 * named by X-Forwarded-For).
 */
import type { FuzzCase, Mode } from './cases.js';
import { header } from './cases.js';
import { parseResponses, type Exchange, type ParsedResponse } from './wire.js';

export const KINDS = [
  'crashes',
  'unexpected 5xx',
  'unescaped reflections',
  'injected headers',
  'unparseable answers',
  'outside the pipeline',
  'leaks',
  'unbounded reports',
  'contract breaks',
] as const;
export type Kind = (typeof KINDS)[number];

/** The five counts issue 10 names. */
export const ISSUE_KINDS: readonly Kind[] = KINDS.slice(0, 5);

export interface Finding {
  kind: Kind;
  detail: string;
}

export interface CheckContext {
  mode: Mode;
  /** The project's root and its dependencies' real directory: the only places a stack frame may point to. */
  roots: readonly string[];
  /** A value in the service's environment that no answer may show (`/proc/self/environ`). */
  canary: string;
}

/** Report bounds as docs/profiler.md documents them (Report size): strings cut at 8,192 characters plus the cut marker. */
export const REPORT_STRING_MAX = 8_192 + 64;
/** A report's sections (64 KiB), its URL (8 KiB) and its stack trace (64 KiB), as JSON. */
export const REPORT_JSON_MAX = 144 * 1024;

const MARKUP = /<vgl-\d+/;
const RAW_REFUSAL_STATUSES = [400, 408, 413, 414, 431];
const INTERNAL = /\b(?:ERR|FST_ERR|VIGIL_ERR|HPE)_[A-Z_]+|node_modules|\n\s+at \S.*:\d+:\d+|vgl-/;
const SECRET_CONTENT = [/^root:[^:\n]*:0:0:/m, /PRIVATE KEY-----/];

/** Reads a case's exchange into answers and findings. */
export function checkExchange(
  fuzzCase: FuzzCase,
  exchange: Exchange,
  context: CheckContext,
): { answers: ParsedResponse[]; findings: Finding[] } {
  const findings: Finding[] = [];
  const add = (kind: Kind, detail: string) => findings.push({ kind, detail });
  const parsed = parseResponses(exchange.received, fuzzCase.methods, exchange.closedByServer || exchange.timedOut);
  const answers = parsed.responses;
  if (exchange.timedOut && answers.length < fuzzCase.answers)
    add(
      'unparseable answers',
      `no answer ${answers.length + 1} within the hang guard (${Math.round(exchange.ms)} ms): the service hangs on this case`,
    );
  else if (exchange.error !== undefined && answers.length === 0)
    add('unparseable answers', `the connection failed with ${exchange.error} before any answer`);
  else if (parsed.problem !== undefined && parsed.problem !== 'incomplete')
    add('unparseable answers', `answer ${answers.length + 1}: ${parsed.problem}`);
  else if (answers.length < fuzzCase.answers)
    add(
      'unparseable answers',
      `${answers.length} of ${fuzzCase.answers} answers before the server closed the connection`,
    );

  for (const answer of answers) {
    for (const finding of checkAnswer(fuzzCase, answer, context)) findings.push(finding);
  }
  for (const rule of fuzzCase.rules) {
    const breach = rule.breach(answers, context.mode);
    if (breach !== undefined) add('contract breaks', `${rule.says}: ${breach}`);
  }
  return { answers, findings };
}

/** The checks that hold for every single answer. */
export function checkAnswer(
  fuzzCase: Pick<FuzzCase, 'serverErrors'> & Partial<Pick<FuzzCase, 'outsider'>>,
  answer: ParsedResponse,
  context: CheckContext,
): Finding[] {
  const findings: Finding[] = [];
  const add = (kind: Kind, detail: string) => findings.push({ kind, detail });
  const { status } = answer;
  const message = header(answer, 'x-debug-exception');
  const said = message === undefined ? '' : ` (${safeDecode(message).slice(0, 120)})`;

  if (status >= 500 && !fuzzCase.serverErrors.includes(status))
    add('unexpected 5xx', `${status} ${answer.reason}${said}`);

  for (const [name, value] of answer.rawHeaders) {
    if (/^x-injected-/i.test(name)) add('injected headers', `${name}: ${value}`);
    if (MARKUP.test(value)) add('unescaped reflections', `header ${name}: ${excerpt(value)}`);
  }
  const type = (header(answer, 'content-type') ?? '').toLowerCase();
  const body = answer.body.toString('latin1');
  // Markup matters where a browser would parse it: HTML, XML, or a body it must sniff.
  if ((type === '' || type.includes('html') || type.includes('xml')) && MARKUP.test(body)) {
    add('unescaped reflections', `${type || 'no content-type'} body: ${excerpt(body)}`);
  }

  if (status >= 400) {
    // Debug output goes only to clients that may open the profiler.
    const rendering = context.mode === 'debug' && fuzzCase.outsider ? 'prod' : context.mode;
    for (const problem of pipelineProblems(answer, rendering))
      add('outside the pipeline', `${status} ${answer.reason}: ${problem}${said}`);
  }

  const whole = `${answer.rawHeaders.map(([name, value]) => `${name}: ${value}`).join('\n')}\n${body}`;
  for (const pattern of SECRET_CONTENT) {
    if (pattern.test(whole)) add('leaks', `the answer holds ${pattern.source}`);
  }
  if (whole.includes(context.canary)) add('leaks', "the answer holds the service's environment (/proc/self/environ)");
  for (const file of framesNamed(answer, type)) {
    // Frames without a file (`<anonymous>`, `node:internal/...`) name nothing to read.
    if (file.startsWith('/') && !context.roots.some((root) => file.startsWith(`${root}/`)))
      add('leaks', `a stack frame names ${file}, outside the project`);
  }
  return findings;
}

function pipelineProblems(answer: ParsedResponse, mode: Mode): string[] {
  const problems: string[] = [];
  if (header(answer, 'cache-control') !== 'no-cache, private')
    problems.push(`cache-control is ${JSON.stringify(header(answer, 'cache-control') ?? null)}`);
  const debugHeaders = answer.rawHeaders
    .map(([name]) => name.toLowerCase())
    .filter((name) => name.startsWith('x-debug-'));
  if (mode === 'prod') {
    if (debugHeaders.length > 0) problems.push(`sends ${debugHeaders.join(', ')} without debug`);
    const body = answer.body.toString('latin1');
    const internal = INTERNAL.exec(body);
    if (internal) problems.push(`the body says ${JSON.stringify(internal[0])} without debug`);
    return problems;
  }
  // A raw refusal from a trusted proxy has no client to judge: it may go without.
  if (!debugHeaders.includes('x-debug-exception') && !isRawRefusal(answer)) problems.push('no x-debug-exception');
  if (!debugHeaders.includes('x-debug-token') && !isRawRefusal(answer) && !isProfilerPage(answer))
    problems.push('no x-debug-token');
  return problems;
}

/** Node's parser refused the bytes before there was a request; the kernel answered raw. */
function isRawRefusal(answer: ParsedResponse): boolean {
  return (
    RAW_REFUSAL_STATUSES.includes(answer.status) &&
    (header(answer, 'connection') ?? '').toLowerCase() === 'close' &&
    (header(answer, 'content-type') ?? '').startsWith('text/plain')
  );
}

/** The profiler's own pages (never profiled themselves) carry its security policy. */
function isProfilerPage(answer: ParsedResponse): boolean {
  return (header(answer, 'content-security-policy') ?? '').startsWith("default-src 'none'");
}

/** Files named by the debug headers and by a problem+json trace. */
function framesNamed(answer: ParsedResponse, type: string): string[] {
  const files: string[] = [];
  const site = header(answer, 'x-debug-exception-file');
  if (site !== undefined) files.push(safeDecode(site.slice(0, site.lastIndexOf(':'))));
  if (type.startsWith('application/problem+json')) {
    try {
      const exception = (
        JSON.parse(answer.body.toString('utf8')) as {
          exception?: { file?: unknown; trace?: Array<{ file?: unknown }> };
        }
      ).exception;
      if (typeof exception?.file === 'string') files.push(exception.file);
      for (const frame of exception?.trace ?? []) if (typeof frame.file === 'string') files.push(frame.file);
    } catch {
      // not JSON after all: the parse checks elsewhere say so
    }
  }
  return files;
}

/** Checks on a stored report, read back as JSON (debug mode). */
export function checkReport(json: string, secret: string | undefined, canary: string): Finding[] {
  const findings: Finding[] = [];
  if (secret !== undefined && json.includes(secret))
    findings.push({
      kind: 'leaks',
      detail: `the stored report holds the credential ${secret} at ${whereIn(json, secret)}`,
    });
  if (json.includes(canary))
    findings.push({ kind: 'leaks', detail: "the stored report holds the service's environment" });
  const bytes = Buffer.byteLength(json);
  if (bytes > REPORT_JSON_MAX)
    findings.push({
      kind: 'unbounded reports',
      detail: `the stored report is ${bytes} bytes of JSON (bound ${REPORT_JSON_MAX})`,
    });
  const longest = longestString(JSON.parse(json) as unknown);
  if (longest.length > REPORT_STRING_MAX)
    findings.push({
      kind: 'unbounded reports',
      detail: `a stored string at ${longest.path} is ${longest.length} characters (bound ${REPORT_STRING_MAX})`,
    });
  return findings;
}

function longestString(value: unknown, path = '$'): { length: number; path: string } {
  if (typeof value === 'string') return { length: value.length, path };
  let best = { length: 0, path };
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = longestString(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
      if (found.length > best.length) best = found;
    }
  }
  return best;
}

/** The JSON path-ish context of a needle, for a finding a reader can act on. */
function whereIn(json: string, needle: string): string {
  const at = json.indexOf(needle);
  return JSON.stringify(json.slice(Math.max(0, at - 60), at + needle.length + 10));
}

/** A short piece of text around the first marker. */
function excerpt(text: string): string {
  const at = text.search(MARKUP);
  return JSON.stringify(text.slice(Math.max(0, at - 40), at + 40));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
