/**
 * The fuzzer's own parts, without a service: the strict answer reader, the checks every
 * answer goes through, and the corpus (deterministic from its seed, every issue case in it).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { materialize, type Mode } from './cases.js';
import { checkAnswer, checkExchange, checkReport, type Kind } from './checks.js';
import { buildCorpus, FAMILIES } from './corpus.js';
import { ISSUE_CASES } from './issue-cases.js';
import { Random } from './prng.js';
import { parseResponses, type Exchange, type ParsedResponse } from './wire.js';

const ROOT = '/srv/vigil';
const context = (mode: Mode) => ({ mode, roots: [ROOT], canary: 'vgl-env-canary' });
const one = (raw: string, method = 'GET'): ParsedResponse => {
  const parsed = parseResponses(Buffer.from(raw, 'latin1'), [method], true);
  assert.equal(parsed.problem, undefined);
  return parsed.responses[0]!;
};
const kinds = (answer: ParsedResponse, mode: Mode, serverErrors: number[] = []): Kind[] =>
  checkAnswer({ serverErrors }, answer, context(mode)).map((finding) => finding.kind);

const ESCAPED = '<p>&lt;vgl-3&gt;</p>';
const PIPELINE_404 = `HTTP/1.1 404 Not Found\r\nx-debug-token: 0a1b2c\r\ncontent-type: text/html; charset=UTF-8\r\ncache-control: no-cache, private\r\nx-debug-exception: No%20route\r\nx-debug-exception-file: %2Fsrv%2Fvigil%2Fsrc%2Frouting%2Funmatched.ts:45\r\ncontent-length: ${ESCAPED.length}\r\n\r\n${ESCAPED}`;

describe('the answer reader is strict', () => {
  it('reads a body framed by Content-Length and one framed by chunks', () => {
    const parsed = parseResponses(
      Buffer.from(
        'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhelloHTTP/1.1 500 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
        'latin1',
      ),
      ['GET', 'GET'],
      true,
    );
    assert.equal(parsed.problem, undefined);
    assert.deepEqual(
      parsed.responses.map((answer) => [answer.status, answer.body.toString()]),
      [
        [200, 'hello'],
        [500, 'abc'],
      ],
    );
  });

  it('gives a HEAD answer no body, and skips a 100 Continue', () => {
    const parsed = parseResponses(
      Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\ncontent-length: 3000\r\n\r\n', 'latin1'),
      ['HEAD'],
      true,
    );
    assert.deepEqual(
      parsed.responses.map((answer) => [answer.status, answer.body.length]),
      [[404, 0]],
    );
  });

  it('calls a body shorter than its Content-Length cut short once the connection is closed', () => {
    assert.equal(
      parseResponses(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nshort', 'latin1'), ['GET'], true).problem,
      'the body is cut short (5 of 9 bytes)',
    );
    assert.equal(
      parseResponses(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nshort', 'latin1'), ['GET'], false)
        .problem,
      'incomplete',
    );
  });

  it('refuses what is not a status line or a header line', () => {
    assert.match(
      parseResponses(Buffer.from('HTTP/1.0 200 OK\r\n\r\n', 'latin1'), ['GET'], true).problem ?? '',
      /^not a status line/,
    );
    assert.match(
      parseResponses(Buffer.from('HTTP/1.1 200 OK\r\nx-a: b\rc\r\ncontent-length: 0\r\n\r\n', 'latin1'), ['GET'], true)
        .problem ?? '',
      /^not a header line/,
    );
    assert.match(
      parseResponses(
        Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab', 'latin1'),
        ['GET'],
        true,
      ).problem ?? '',
      /^bad Content-Length/,
    );
  });
});

describe('every answer is checked', () => {
  it('passes an error answer that went through the pipeline, markup escaped', () => {
    assert.deepEqual(kinds(one(PIPELINE_404), 'debug'), []);
  });

  it('finds markup raw in an HTML body or in a header, not in JSON', () => {
    const html = 'HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 12\r\n\r\n<vgl-7>x</a>';
    const json = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 13\r\n\r\n{"a":"<vgl-7>';
    const header =
      'HTTP/1.1 301 Moved Permanently\r\nlocation: https://localhost/?q=<vgl-7>\r\ncontent-length: 0\r\n\r\n';
    assert.deepEqual(kinds(one(html), 'debug'), ['unescaped reflections']);
    assert.deepEqual(kinds(one(json), 'debug'), []);
    assert.deepEqual(kinds(one(header), 'debug'), ['unescaped reflections']);
  });

  it('finds an injected header', () => {
    assert.deepEqual(kinds(one('HTTP/1.1 200 OK\r\nX-Injected-12: 1\r\ncontent-length: 0\r\n\r\n'), 'prod'), [
      'injected headers',
    ]);
  });

  it('takes Node\'s raw "500 OK" for a designed failure as outside the pipeline, and any other 5xx as unexpected', () => {
    const raw = one(
      'HTTP/1.1 500 OK\r\nTransfer-Encoding: chunked\r\n\r\n2d\r\n{"statusCode":500,"code":"ERR_INVALID_CHAR"}x\r\n0\r\n\r\n',
    );
    assert.deepEqual(kinds(raw, 'prod', [500]), ['outside the pipeline', 'outside the pipeline']);
    assert.deepEqual(kinds(raw, 'prod'), ['unexpected 5xx', 'outside the pipeline', 'outside the pipeline']);
  });

  it("accepts the parser's raw refusal without a token in debug mode, but no error without a token otherwise", () => {
    const refusal = one(
      'HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=UTF-8\r\ncache-control: no-cache, private\r\nconnection: close\r\nx-debug-exception: Bad\r\ncontent-length: 0\r\n\r\n',
    );
    assert.deepEqual(kinds(refusal, 'debug'), []);
    const noToken = one(
      'HTTP/1.1 400 Bad Request\r\ncontent-type: text/html; charset=UTF-8\r\ncache-control: no-cache, private\r\nx-debug-exception: Bad\r\ncontent-length: 0\r\n\r\n',
    );
    assert.deepEqual(kinds(noToken, 'debug'), ['outside the pipeline']);
    const fromProxy = one(
      'HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=UTF-8\r\ncache-control: no-cache, private\r\nconnection: close\r\ncontent-length: 0\r\n\r\n',
    );
    assert.deepEqual(kinds(fromProxy, 'debug'), []);
  });

  it('holds an outsider’s answers in debug mode to the production rules', () => {
    const outsider = materialize(
      { name: 'outsider', bytes: 'GET /nope HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n' },
      1,
      'test',
    );
    assert.equal(outsider.outsider, true);
    assert.deepEqual(
      checkAnswer(outsider, one(PIPELINE_404), context('debug')).map((finding) => finding.kind),
      ['outside the pipeline', 'outside the pipeline'],
    );
    for (const forwarded of ['127.0.0.1', '::ffff:127.0.0.1', '', '127.0.0.1, 127.0.0.1']) {
      const local = materialize(
        { name: 'local', bytes: `GET /nope HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: ${forwarded}\r\n\r\n` },
        1,
        'test',
      );
      assert.equal(local.outsider, false, forwarded);
    }
    for (const forwarded of ['127.0.0.1, 203.0.113.9', '203.0.113.9, 127.0.0.1', 'unknown']) {
      const far = materialize(
        { name: 'far', bytes: `GET /nope HTTP/1.1\r\nX-Forwarded-For: ${forwarded}\r\n\r\n` },
        1,
        'test',
      );
      assert.equal(far.outsider, true, forwarded);
    }
  });

  it('finds debug headers and request data in a production error', () => {
    assert.deepEqual(kinds(one(PIPELINE_404), 'prod'), ['outside the pipeline', 'outside the pipeline']);
  });

  it('finds a stack frame outside the project and file contents that must never be sent', () => {
    const frame = one(
      'HTTP/1.1 422 Unprocessable Entity\r\ncache-control: no-cache, private\r\nx-debug-token: 0a1b2c\r\nx-debug-exception: x\r\nx-debug-exception-file: %2Fetc%2Fpasswd:1\r\ncontent-length: 0\r\n\r\n',
    );
    assert.deepEqual(kinds(frame, 'debug'), ['leaks']);
    const passwd = one(
      'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 31\r\n\r\nroot:x:0:0:root:/root:/bin/bash',
    );
    assert.deepEqual(kinds(passwd, 'prod'), ['leaks']);
  });

  it("counts missing answers and a hang as unparseable, and checks a case's own rules", () => {
    const fuzzCase = materialize(
      {
        name: 'two requests',
        bytes: 'GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n',
        answers: 2,
        rules: [{ says: 'a rule', breach: () => 'broken' }],
      },
      1,
      'test',
    );
    const exchanged = (received: string, more: Partial<Exchange> = {}): Exchange => ({
      received: Buffer.from(received, 'latin1'),
      closedByServer: true,
      timedOut: false,
      error: undefined,
      ms: 1,
      ...more,
    });
    const answer = 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n';
    assert.deepEqual(
      checkExchange(fuzzCase, exchanged(answer), context('prod')).findings.map((finding) => finding.detail),
      ['1 of 2 answers before the server closed the connection', 'a rule: broken'],
    );
    assert.match(
      checkExchange(fuzzCase, exchanged('', { closedByServer: false, timedOut: true, ms: 30_000 }), context('prod'))
        .findings[0]!.detail,
      /hang guard/,
    );
  });

  it('finds a secret in a stored report and strings over the bound', () => {
    const report = JSON.stringify({
      url: 'https://localhost/?password=vgl-secret-4',
      collectors: { request: { headers: { 'x-big': 'b'.repeat(9_000) } } },
    });
    assert.deepEqual(
      checkReport(report, 'vgl-secret-4', 'vgl-env-canary').map((finding) => finding.kind),
      ['leaks', 'unbounded reports'],
    );
    assert.deepEqual(
      checkReport(JSON.stringify({ url: 'https://localhost/?password=[redacted]' }), 'vgl-secret-4', 'vgl-env-canary'),
      [],
    );
  });
});

describe('the corpus follows from its seed', () => {
  const context = { port: 8443, bait: { fifo: '/tmp/fifo', large: '/tmp/large', key: '/tmp/key' } };

  it('draws the same numbers from the same seed', () => {
    const a = new Random(7);
    const b = new Random(7);
    assert.deepEqual(
      [a.next(), a.int(1, 6), a.pick(['x', 'y', 'z'])],
      [b.next(), b.int(1, 6), b.pick(['x', 'y', 'z'])],
    );
  });

  it('builds the same cases from the same seed and different ones from another', () => {
    const bytes = (seed: number) =>
      buildCorpus(seed, ISSUE_CASES.length + 40, context).map((fuzzCase) =>
        Buffer.concat(fuzzCase.chunks).toString('latin1'),
      );
    assert.deepEqual(bytes(11), bytes(11));
    assert.notDeepEqual(bytes(11), bytes(12));
  });

  it('holds every case of issue 10 and every family, the freezing cases last', () => {
    const corpus = buildCorpus(3, 1_000, context);
    assert.equal(corpus.length, 1_000);
    const families = new Set(corpus.map((fuzzCase) => fuzzCase.family));
    for (const family of [...FAMILIES.map((item) => item.name), ...ISSUE_CASES.map((item) => item.family)])
      assert.ok(families.has(family), family);
    assert.equal(corpus.filter((fuzzCase) => fuzzCase.family.startsWith('item ')).length, ISSUE_CASES.length);
    assert.ok(corpus.at(-1)!.last);
    assert.deepEqual(
      corpus.map((fuzzCase) => fuzzCase.id),
      corpus.map((_, index) => index + 1),
    );
  });
});
