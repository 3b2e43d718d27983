/**
 * The cases of issue 10, items 1 to 8, in every corpus whatever its size or seed: each
 * carries the rule its item states, so that the fuzzer fails on today's behaviour and
 * passes once the item is fixed.
 */
import { join } from 'node:path';
import { ROOT } from '../support/service.js';
import {
  debugMessage,
  header,
  injectedName,
  LINKS_KEEP_SCHEME,
  marker,
  NO_CORS,
  REFUSED_LIKE_ANYONE,
  secretValue,
  statusRule,
  type CaseContext,
  type CaseSpec,
  type Rule,
} from './cases.js';
import { multipartBody, requestBytes } from './request.js';

/** Files a request must never be able to read through a forged stack frame (item 1). */
export interface Bait {
  /** A FIFO nobody writes to: reading it blocks forever. */
  fifo: string;
  /** A large sparse file. */
  large: string;
  /** The TLS private key the service runs with. */
  key: string;
}

export interface IssueContext extends CaseContext {
  bait: Bait;
}

export interface IssueCase {
  family: string;
  /** May stop the service today: sent after every other case. */
  last?: boolean;
  make(id: number, context: IssueContext): CaseSpec;
}

/** A client the profiler does not admit: a forged address behind the trusted proxy (item 6). */
export const OUTSIDER = '203.0.113.9';
const FIXTURE = join(ROOT, 'test/fixtures/fuzz-routes.ts');

/** A query value that forges a stack frame pointing at `file` (item 1). */
function forgedFrame(file: string): string {
  return encodeURIComponent(`\n    at ${file}:1:1\n`);
}

const raisedInFixture: Rule = {
  says: 'item 1: x-debug-exception-file names the real throw site, never a frame written in the message',
  breach(answers, mode) {
    const value = answers[0] && header(answers[0], 'x-debug-exception-file');
    if (mode === 'prod' || value === undefined) return undefined;
    const file = decodeURIComponent(value.slice(0, value.lastIndexOf(':')));
    return file === FIXTURE ? undefined : `names ${file}`;
  },
};

const dupContentLengthWords: Rule = {
  says: 'item 7: a duplicate Content-Length is a 400 that does not speak of Transfer-Encoding',
  breach(answers, mode) {
    const answer = answers[0];
    if (!answer) return 'no answer';
    if (answer.status !== 400) return `got ${answer.status}`;
    return mode === 'debug' && /transfer-encoding/i.test(debugMessage(answer))
      ? `message: ${debugMessage(answer)}`
      : undefined;
  },
};

const get = (target: string, headers: Array<[string, string]> = [], host?: string) =>
  requestBytes({ target, headers, ...(host === undefined ? {} : { host }) });
const accept = (type: string): Array<[string, string]> => [['Accept', type]];

export const ISSUE_CASES: readonly IssueCase[] = [
  // Item 1: a forged frame in an error message must not name a file, nor have it read.
  ...(['application/json', 'text/html', 'application/xml'] as const).map((type) => ({
    family: 'item 1: frames from messages',
    make: (id: number): CaseSpec => ({
      name: `isolated /check forging /etc/passwd, ${type}`,
      bytes: get(`/check?v=${forgedFrame('/etc/passwd')}${encodeURIComponent(marker(id))}`, accept(type)),
      rules: [statusRule('item 1: the route answers its own 422', [422]), raisedInFixture],
    }),
  })),
  {
    family: 'item 1: frames from messages',
    make: () => ({
      name: 'in-process /check-here forging /etc/passwd',
      bytes: get(`/check-here?v=${forgedFrame('/etc/passwd')}`, accept('application/json')),
      rules: [raisedInFixture],
    }),
  },
  {
    family: 'item 1: frames from messages',
    make: () => ({
      name: 'forging /proc/self/environ',
      bytes: get(`/check?v=${forgedFrame('/proc/self/environ')}`),
      rules: [raisedInFixture],
    }),
  },
  {
    family: 'item 1: frames from messages',
    make: (_id, { bait }) => ({
      name: 'forging the TLS private key',
      bytes: get(`/check?v=${forgedFrame(bait.key)}`, accept('text/plain')),
      rules: [raisedInFixture],
    }),
  },
  {
    family: 'item 1: frames from messages',
    make: (_id, { bait }) => ({
      name: 'forging an 8 MB sparse file',
      bytes: get(`/check?v=${forgedFrame(bait.large)}`),
      rules: [raisedInFixture],
    }),
  },
  {
    family: 'item 1: frames from messages',
    make: () => ({
      name: 'forging a file of the project that is no source',
      bytes: get(`/check?v=${forgedFrame(join(ROOT, 'package.json'))}`),
      rules: [raisedInFixture],
    }),
  },
  {
    family: 'item 1: frames from messages',
    // Reading a FIFO blocks the event loop for good today: sent after every other case.
    last: true,
    make: (_id, { bait }) => ({
      name: 'forging a FIFO',
      bytes: get(`/check?v=${forgedFrame(bait.fifo)}`),
      rules: [raisedInFixture],
    }),
  },

  // Item 2: form bodies parse in linear time, whatever repeats.
  ...(
    [
      ['a=&', 40_000],
      ['a=1&', 30_000],
      ['a&', 40_000],
    ] as const
  ).map(([unit, times]) => ({
    family: 'item 2: form bombs',
    make: (): CaseSpec => ({
      name: `${JSON.stringify(unit)} x ${times}`,
      bytes: requestBytes({
        method: 'POST',
        target: '/echo',
        headers: [['Content-Type', 'application/x-www-form-urlencoded']],
        body: unit.repeat(times),
      }),
      rules: [statusRule('item 2: a form bomb is parsed (200) or refused (413)', [200, 413])],
    }),
  })),
  {
    family: 'item 2: form bombs',
    make: () => ({
      name: '1000 multipart fields of one name',
      bytes: requestBytes({
        method: 'POST',
        target: '/upload',
        headers: [['Content-Type', 'multipart/form-data; boundary=vgl']],
        body: multipartBody(
          'vgl',
          Array.from({ length: 1000 }, () => ({ disposition: 'form-data; name="a"', content: '' })),
        ),
      }),
      rules: [statusRule('item 2: repeated fields are parsed (200) or refused (413)', [200, 413])],
    }),
  },

  // Item 3: a large JSON body (bounded here; the 100 MB one is the bench's).
  ...(['/echo', '/isolated-echo'] as const).map((target) => ({
    family: 'item 3: large JSON',
    make: (): CaseSpec => ({
      name: `4 MB of [{},...] to ${target}`,
      bytes: requestBytes({
        method: 'POST',
        target,
        headers: [['Content-Type', 'application/json']],
        body: `[${'{},'.repeat(1_400_000)}{}]`,
      }),
      rules: [statusRule('item 3: a large JSON body is parsed (200) or refused with a 413', [200, 413])],
    }),
  })),

  // Item 4: a request the client never finishes is answered when its stream ends.
  {
    family: 'item 4: cut short',
    make: () => ({
      name: 'body shorter than Content-Length, then end of stream',
      bytes: requestBytes({
        method: 'POST',
        target: '/echo',
        headers: [
          ['Content-Type', 'text/plain'],
          ['Content-Length', '1000'],
        ],
        body: 'only this',
      }),
      halfClose: true,
      rules: [statusRule('item 4: a body cut short is a 400 or 408', [400, 408])],
    }),
  },
  {
    family: 'item 4: cut short',
    make: () => ({
      name: 'head never finished, then end of stream',
      bytes: 'GET /hello HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1',
      halfClose: true,
    }),
  },

  // Item 5: credentials never reach a stored report, wherever they were sent.
  ...[
    'access_token',
    'api_key',
    'api-key',
    'ApiKey',
    'password',
    'PASSWD',
    'client_secret',
    'auth',
    'session_id',
    'signature',
    'token',
  ].map((name) => ({
    family: 'item 5: secrets',
    make: (id: number): CaseSpec => ({
      name: `?${name}= on an unrouted path`,
      bytes: get(`/nope?${name}=${secretValue(id)}&q=1`),
      secret: secretValue(id),
      inspectReport: true,
    }),
  })),
  ...['X-Api-Key', 'X-Auth-Token', 'Authorization', 'Cookie', 'X-Session-Id', 'X-Signature', 'X-Client-Secret'].map(
    (name) => ({
      family: 'item 5: secrets',
      make: (id: number): CaseSpec => ({
        name: `${name} header`,
        bytes: get('/hello', [[name, secretValue(id)]]),
        secret: secretValue(id),
        inspectReport: true,
      }),
    }),
  ),
  {
    family: 'item 5: secrets',
    make: (id) => ({
      name: 'Referer with ?password= on a 404',
      bytes: get('/nope', [['Referer', `https://example.com/p?password=${secretValue(id)}`]]),
      secret: secretValue(id),
      inspectReport: true,
    }),
  },
  {
    family: 'item 5: secrets',
    make: (id) => ({
      name: '301 carrying ?api_key=',
      bytes: get(`/with-slash?api_key=${secretValue(id)}`),
      secret: secretValue(id),
      inspectReport: true,
    }),
  },
  {
    family: 'item 5: secrets',
    make: (id) => ({
      name: 'form field password=',
      bytes: requestBytes({
        method: 'POST',
        target: '/echo',
        headers: [['Content-Type', 'application/x-www-form-urlencoded']],
        body: `user=a&password=${secretValue(id)}`,
      }),
      secret: secretValue(id),
      inspectReport: true,
    }),
  },

  // Item 6: the profiler, concealed alike for every method and target form.
  ...(
    [
      ['POST', 'https://127.0.0.1:{port}/_profiler'],
      ['GET', 'http://evil/_profiler/search/'],
      ['GET', '/_profiler/search/'],
      ['PUT', '/_profiler/search'],
      ['OPTIONS', '/%5Fprofiler'],
    ] as const
  ).map(([method, target]) => ({
    family: 'item 6: profiler concealment',
    make: (_id: number, { port }: CaseContext): CaseSpec => ({
      name: `${method} ${target.replace('{port}', String(port))} from ${OUTSIDER}`,
      bytes: requestBytes({
        method,
        target: target.replace('{port}', String(port)),
        headers: [
          ['X-Forwarded-For', OUTSIDER],
          ['Content-Length', '0'],
        ],
      }),
      rules: [...REFUSED_LIKE_ANYONE],
    }),
  })),
  ...['/_profiler', '/_profiler/search', '/_profiler/zzzzzz'].map((target) => ({
    family: 'item 6: profiler concealment',
    make: (): CaseSpec => ({
      name: `${target} with an allowed Origin`,
      bytes: get(target, [
        ['Origin', 'http://localhost:3000'],
        ['Accept', 'application/json'],
      ]),
      rules: [NO_CORS],
    }),
  })),
  {
    family: 'item 6: profiler concealment',
    make: () => ({
      name: 'preflight to /_profiler/search',
      bytes: requestBytes({
        method: 'OPTIONS',
        target: '/_profiler/search',
        headers: [
          ['Origin', 'http://localhost:3000'],
          ['Access-Control-Request-Method', 'GET'],
        ],
      }),
      rules: [NO_CORS],
    }),
  },
  ...['javascript', 'data', 'https:evil'].map((proto) => ({
    family: 'item 6: profiler concealment',
    make: (): CaseSpec => ({
      name: `X-Forwarded-Proto: ${proto} on a 301`,
      bytes: get('/with-slash', [['X-Forwarded-Proto', proto]]),
      rules: [LINKS_KEEP_SCHEME],
    }),
  })),
  ...(
    [
      ['Host', 'evil.example'],
      ['Host', 'localhost.evil.example'],
      ['X-Forwarded-Host', 'evil.example'],
    ] as const
  ).map(([name, value]) => ({
    family: 'item 6: trusted hosts',
    make: (): CaseSpec => ({
      name: `${name}: ${value}`,
      bytes: name === 'Host' ? get('/robots.txt', [], value) : get('/robots.txt', [[name, value]]),
      rules: [statusRule('item 6: a host TRUSTED_HOSTS does not match is a 400', [400])],
    }),
  })),
  {
    family: 'item 6: trusted hosts',
    make: () => ({
      name: 'Host: LOCALHOST (case-insensitive)',
      bytes: get('/robots.txt', [], 'LOCALHOST'),
      rules: [statusRule('item 6: a trusted host in upper case is trusted', [404])],
    }),
  },

  // Item 7: errors that escaped the pipeline.
  {
    family: 'item 7: outside the pipeline',
    make: () => ({
      name: 'handler sets x-echo: U+2028',
      bytes: get('/echo-header?v=%E2%80%A8'),
      serverErrors: [500],
      rules: [statusRule("item 7: an invalid header value is the handler's 500", [500])],
    }),
  },
  {
    family: 'item 7: outside the pipeline',
    make: (id) => ({
      name: 'handler sets x-echo with CRLF and a header',
      bytes: get(`/echo-header?v=a%0D%0A${injectedName(id)}%3A%201`),
      serverErrors: [500],
      rules: [statusRule("item 7: an invalid header value is the handler's 500", [500])],
    }),
  },
  {
    family: 'item 7: outside the pipeline',
    make: () => ({
      name: 'isolated HttpError with header U+2028',
      bytes: get('/isolated-header?v=%E2%80%A8'),
      serverErrors: [500],
      rules: [statusRule('item 7: the error is rendered (its 409, or a 500)', [409, 500])],
    }),
  },
  {
    family: 'item 7: outside the pipeline',
    make: () => ({
      name: 'GET /hello, then bytes that are not a request',
      bytes: `${get('/hello')}GARBAGE\r\n\r\n`,
      methods: ['GET', 'GARBAGE'],
      untilClose: true,
      rules: [
        statusRule('item 7: the first request keeps its answer', [200], 0),
        statusRule('item 7: the bytes after it get a 400 or the close', [400], 1, true),
      ],
    }),
  },
  {
    family: 'item 7: outside the pipeline',
    make: () => ({
      name: 'GET /hello, then a request with two Hosts',
      bytes: `${get('/hello')}GET /nope HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n`,
      methods: ['GET', 'GET'],
      answers: 2,
      rules: [
        statusRule('item 7: the first request keeps its answer', [200], 0),
        statusRule('item 7: two Host headers are a 400', [400], 1),
      ],
    }),
  },
  ...['evil.example', 'localhost'].map((second) => ({
    family: 'item 7: outside the pipeline',
    make: (): CaseSpec => ({
      name: `two Host headers (localhost, ${second})`,
      bytes: get('/hello', [
        ['Host', 'localhost'],
        ['Host', second],
      ]),
      rules: [statusRule('item 7: two Host headers are a 400', [400])],
    }),
  })),
  ...(['3', '4'] as const).map((second) => ({
    family: 'item 7: outside the pipeline',
    make: (): CaseSpec => ({
      name: `Content-Length: 3 and ${second}`,
      bytes: requestBytes({
        method: 'POST',
        target: '/echo',
        headers: [
          ['Content-Type', 'text/plain'],
          ['Content-Length', '3'],
          ['Content-Length', second],
        ],
        body: 'abcd'.slice(0, Number(second)),
      }),
      rules: [dupContentLengthWords],
    }),
  })),
  ...['/%zz', '/hello%', '/caf%C3', '/items/%E0%80%AE'].map((target) => ({
    family: 'item 7: outside the pipeline',
    make: (): CaseSpec => ({
      name: `bad percent-encoding ${target}`,
      bytes: get(target, accept('application/json')),
      rules: [statusRule('item 7: bad percent-encoding is a 400', [400, 404])],
    }),
  })),

  // Item 8: what a client sends is stored in bounded size.
  {
    family: 'item 8: report size',
    make: (id) => ({
      name: '60 KB query',
      bytes: get(`/hello?q=${'a'.repeat(60_000)}${encodeURIComponent(marker(id))}`),
      inspectReport: true,
      rules: [statusRule('item 8: a 60 KB target is a 414', [414])],
    }),
  },
  {
    family: 'item 8: report size',
    make: () => ({
      name: '60 KB path',
      bytes: get(`/nope/${'b'.repeat(60_000)}`),
      inspectReport: true,
      rules: [statusRule('item 8: a 60 KB target is a 414', [414])],
    }),
  },
  {
    family: 'item 8: report size',
    make: () => ({
      name: '20 KB header',
      bytes: get('/hello', [['X-Big', 'c'.repeat(20_000)]]),
      inspectReport: true,
      rules: [statusRule('item 8: 20 KB of headers is a 431', [431])],
    }),
  },
  {
    family: 'item 8: report size',
    make: () => ({
      name: '15 KB Referer on a 404',
      bytes: get('/nope', [['Referer', `https://example.com/${'d'.repeat(15_000)}`]]),
      inspectReport: true,
    }),
  },
];
