/**
 * What one fuzz case is: its bytes, how many answers it must get, and what it may or must
 * be answered, plus the markers that let the checks find a reflection or an injected header.
 */
import type { Random } from './prng.js';
import type { ParsedResponse } from './wire.js';

export type Mode = 'debug' | 'prod';

/** A requirement particular to a case (from issue 10 or the contract), checked on its answers. */
export interface Rule {
  /** The requirement in words, as a failure prints it. */
  says: string;
  /** undefined when the answers comply, else what was seen instead. */
  breach(answers: readonly ParsedResponse[], mode: Mode): string | undefined;
}

export interface FuzzCase {
  /** 1-based position in the corpus; also the number in the case's markers. */
  id: number;
  family: string;
  /** A short description of the variant, printed with a finding. */
  name: string;
  /** The bytes, written one chunk after the other. */
  chunks: Buffer[];
  /** The methods of the requests sent, in order (a HEAD's answer has no body). */
  methods: string[];
  /** Answers required before the connection may end (see "Answered" in checks.ts). */
  answers: number;
  /** End the client's side after the bytes: for requests cut short, which only an end of stream completes. */
  halfClose: boolean;
  /** Read until the server closes: the bytes end in something that is no request, so it must. */
  untilClose: boolean;
  /** 5xx statuses this case is designed to get (a route made to fail); any other 5xx is unexpected. */
  serverErrors: readonly number[];
  /** A credential sent with the case, which no stored report may hold (debug mode). */
  secret: string | undefined;
  /** Read the stored report back and check its size and secrets (debug mode). */
  inspectReport: boolean;
  /** May stop the service today (a frozen event loop): sent after every other case. */
  last: boolean;
  /**
   * The client is one the profiler does not admit (X-Forwarded-For, believed from the fuzz
   * service's trusted proxy, names no loopback address): debug mode answers it as production does.
   */
  outsider: boolean;
  rules: Rule[];
}

/** What a family makes; the corpus fills in id and family. */
export type CaseSpec = Partial<Omit<FuzzCase, 'id' | 'family' | 'chunks'>> & { name: string; bytes: string | string[] };

export interface CaseContext {
  /** The service's port, for absolute-form targets that name it. */
  port: number;
}

/** A family of hostile requests: one variant per call, drawn from `random`. */
export interface Family {
  name: string;
  make(random: Random, id: number, context: CaseContext): CaseSpec;
}

/** `<vgl-N>`: markup that must never reach an HTML page or a header unescaped. */
export const marker = (id: number): string => `<vgl-${id}>`;
/** The name of a header a case tries to inject; it must never be among the answer's headers. */
export const injectedName = (id: number): string => `x-injected-${id}`;
/** A credential value that must never be stored. */
export const secretValue = (id: number): string => `vgl-secret-${id}`;

export function materialize(spec: CaseSpec, id: number, family: string): FuzzCase {
  const pieces = typeof spec.bytes === 'string' ? [spec.bytes] : spec.bytes;
  const chunks = pieces.map((piece) => Buffer.from(piece, 'latin1'));
  return {
    id,
    family,
    name: spec.name,
    chunks,
    methods: spec.methods ?? [methodOf(pieces.join(''))],
    answers: spec.answers ?? 1,
    halfClose: spec.halfClose ?? false,
    untilClose: spec.untilClose ?? false,
    serverErrors: spec.serverErrors ?? [],
    secret: spec.secret,
    inspectReport: spec.inspectReport ?? false,
    last: spec.last ?? false,
    outsider: spec.outsider ?? forwardedFromOutside(pieces.join('')),
    rules: spec.rules ?? [],
  };
}

/** The fuzz service's TRUSTED_PROXIES (fuzz-service.ts), the peer every case comes from. */
const FUZZ_PROXY = '127.0.0.1';
const LOOPBACK = /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$|^::1$/i;

/** True when the first request's X-Forwarded-For, walked back past the trusted proxy, names a client outside loopback. */
function forwardedFromOutside(bytes: string): boolean {
  const end = bytes.indexOf('\r\n\r\n');
  const head = end === -1 ? bytes : bytes.slice(0, end);
  const values = head
    .split('\r\n')
    .slice(1)
    .flatMap((line) => (/^x-forwarded-for:/i.test(line) ? [line.slice(line.indexOf(':') + 1)] : []));
  const hops = values
    .join(',')
    .split(',')
    .map((hop) => hop.trim());
  if (values.length === 0 || hops.every((hop) => hop === '')) return false;
  let client = hops[0]!;
  for (let i = hops.length - 1; i >= 0; i--) {
    if (hops[i] !== FUZZ_PROXY) {
      client = hops[i]!;
      break;
    }
  }
  return !LOOPBACK.test(client);
}

/** The first word of the bytes, as the method the answer's framing depends on. */
function methodOf(bytes: string): string {
  return /^\s*([^\s]*)/.exec(bytes)?.[1] ?? '';
}

/** Rule: the n-th answer (0-based) has one of `statuses`; `optional`: if there is one at all. */
export function statusRule(says: string, statuses: readonly number[], index = 0, optional = false): Rule {
  return {
    says,
    breach(answers) {
      const answer = answers[index];
      if (answer === undefined) return optional ? undefined : `no answer #${index + 1}`;
      return statuses.includes(answer.status) ? undefined : `got ${answer.status}`;
    },
  };
}

/** Rule: no answer carries a header named `name`. */
export function noHeaderRule(says: string, test: (name: string) => boolean): Rule {
  return {
    says,
    breach(answers) {
      const found = answers
        .flatMap((answer) => answer.rawHeaders.map(([name]) => name))
        .filter((name) => test(name.toLowerCase()));
      return found.length === 0 ? undefined : `sent ${found.join(', ')}`;
    },
  };
}

/** The first value of a header, lower-case name. */
export function header(answer: ParsedResponse, name: string): string | undefined {
  return answer.headers.get(name)?.[0];
}

/** The decoded `x-debug-exception` of an answer, '' when absent. */
export function debugMessage(answer: ParsedResponse): string {
  const value = header(answer, 'x-debug-exception');
  if (value === undefined) return '';
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Item 6: X-Forwarded-Proto other than http/https is ignored, so every link is http(s); a
 * redirect's Location is a path of this host (never `//host` or `/\host`).
 */
export const LINKS_KEEP_SCHEME: Rule = {
  says: 'item 6: links are https:// (a forwarded scheme other than http/https is ignored), redirects a path of this host',
  breach(answers) {
    for (const answer of answers) {
      const location = header(answer, 'location');
      if (location !== undefined && !/^\/(?![/\\])/.test(location)) return `location: ${location.slice(0, 80)}`;
      const link = header(answer, 'x-debug-token-link');
      if (link !== undefined && !/^https?:\/\//i.test(link)) return `x-debug-token-link: ${link.slice(0, 80)}`;
    }
    return undefined;
  },
};

/** Item 6: the profiler's pages are never readable cross-origin (without debug there is no profiler: its paths are ordinary). */
export const NO_CORS: Rule = {
  says: 'item 6: profiler pages send no CORS headers',
  breach: (answers, mode) =>
    mode === 'debug' ? noHeaderRule('', (name) => name.startsWith('access-control-')).breach(answers, mode) : undefined,
};

/** Item 6: a client the profiler refuses gets the ordinary 404, for every method and target form. */
export const REFUSED_LIKE_ANYONE: readonly Rule[] = [
  statusRule('item 6: a refused client gets the ordinary 404', [404]),
  noHeaderRule(
    'item 6: a refused client gets no Location and no Allow',
    (name) => name === 'location' || name === 'allow',
  ),
];
