/**
 * Issue 10, item 7: errors that used to escape the one pipeline. A header Node refuses
 * to send, two Host headers and bad percent-encoding are answered by the pipeline (token
 * and report in debug mode, nothing internal in production); a malformed request pipelined
 * behind a good one leaves the good one's answer alone; each framing error has its own words.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { startTogether } from '../support/start-together.js';
import { ask, type Service } from '../support/service.js';
import { rawExchange } from '../support/raw-tls.js';

let debug: Service;
let production: Service;
before(async () => {
  [debug, production] = await startTogether<[Service, Service]>(
    [
      startInProcess({ ROUTES: 'test/fixtures/hostile-routes.ts' }),
      startInProcess({ ROUTES: 'test/fixtures/hostile-routes.ts', APP_ENV: 'prod' }),
    ],
    (started) => started.stop(),
  );
});
after(() => Promise.all([debug.stop(), production.stop()]));

interface RawAnswer {
  statusLine: string;
  headers: Map<string, string>;
  body: string;
}

/** The responses of a raw exchange, one after the other, each body as long as its Content-Length says. */
function answers(raw: string): RawAnswer[] {
  const found: RawAnswer[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) throw new Error(`an incomplete response: ${JSON.stringify(rest)}`);
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const headers = new Map(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = headers.get('content-length');
    const bodyEnd = length === undefined ? rest.length : end + 4 + Number(length);
    found.push({ statusLine, headers, body: rest.slice(end + 4, bodyEnd) });
    rest = rest.slice(bodyEnd);
  }
  return found;
}

const firstAnswer = (raw: string): RawAnswer => answers(raw)[0]!;

const request = (path: string, headers: Record<string, string> = {}) =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries({ connection: 'close', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

const decoded = (value: string | undefined) => decodeURIComponent(value ?? '');

/** The stored report of a token, as the profiler serves it. */
async function storedReport(
  token: string,
): Promise<{ status: number; collectors: { exception?: { message: string; code: string } } }> {
  const answer = await ask(debug, { path: `/_profiler/${token}`, headers: { accept: 'application/json' } });
  assert.equal(answer.status, 200, `a report is stored under ${token}`);
  return JSON.parse(answer.body);
}

function assertThroughPipeline(answer: RawAnswer, status: string): string {
  assert.equal(answer.statusLine, `HTTP/1.1 ${status}`);
  assert.equal(answer.headers.get('cache-control'), 'no-cache, private');
  assert.equal(answer.headers.get('vary'), 'Accept');
  const token = answer.headers.get('x-debug-token') ?? '';
  assert.match(token, /^[0-9a-f]{6}$/);
  return token;
}

function assertNothingInternal(answer: RawAnswer, status: string, internals: string[]): void {
  assert.equal(answer.statusLine, `HTTP/1.1 ${status}`);
  assert.equal(answer.headers.get('cache-control'), 'no-cache, private');
  assert.deepEqual(
    [...answer.headers.keys()].filter((name) => name.startsWith('x-')),
    [],
  );
  assert.equal(answer.body, `${status}\n`);
  for (const text of internals) assert.ok(!answer.body.includes(text), `shows "${text}"`);
}

describe('a header value Node refuses to send goes through the pipeline', () => {
  const internals = ['ERR_INVALID_CHAR', 'Invalid character', 'x-echo', 'Conflict with a header'];

  it("answers a handler's invalid header with the pipeline's 500, token and report", async () => {
    const answer = firstAnswer(await rawExchange(debug, request('/echo-header', { accept: 'application/json' })));
    const token = assertThroughPipeline(answer, '500 Internal Server Error');
    assert.equal(answer.headers.get('content-type'), 'application/problem+json');
    assert.equal(answer.headers.get('x-echo'), undefined);
    const problem = JSON.parse(answer.body);
    assert.equal(problem.status, 500);
    assert.equal(problem.debugToken, token);
    assert.equal(problem.detail, 'Invalid character in header content ["x-echo"]');
    const report = await storedReport(token);
    assert.equal(report.status, 500);
    assert.equal(report.collectors.exception?.code, 'ERR_INVALID_CHAR');
  });

  it('shows nothing of it in production', async () => {
    const answer = firstAnswer(await rawExchange(production, request('/echo-header', { accept: 'text/plain' })));
    assertNothingInternal(answer, '500 Internal Server Error', internals);
  });

  it("answers an isolated HttpError's invalid header with the error, through the pipeline, without the header", async () => {
    const answer = firstAnswer(
      await rawExchange(debug, request('/isolated-echo-header', { accept: 'application/json' })),
    );
    const token = assertThroughPipeline(answer, '409 Conflict');
    assert.equal(answer.headers.get('x-echo'), undefined);
    assert.equal(JSON.parse(answer.body).detail, 'Conflict with a header');
    assert.equal((await storedReport(token)).status, 409);
  });

  it('shows nothing of the isolated one in production', async () => {
    const answer = firstAnswer(
      await rawExchange(production, request('/isolated-echo-header', { accept: 'text/plain' })),
    );
    assertNothingInternal(answer, '409 Conflict', internals);
  });
});

describe('a malformed request pipelined behind good ones leaves their answers alone', () => {
  it('answers both good requests, in order, then the 400', async () => {
    const good = 'GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n';
    const raw = await rawExchange(
      debug,
      `${good}${good}GET /hello HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n`,
    );
    const [first, second, third, ...more] = answers(raw);
    assert.deepEqual([first?.statusLine, first?.body], ['HTTP/1.1 200 OK', 'hello']);
    assert.deepEqual([second?.statusLine, second?.body], ['HTTP/1.1 200 OK', 'hello']);
    assert.equal(third?.statusLine, 'HTTP/1.1 400 Bad Request');
    assert.equal(
      decoded(third?.headers.get('x-debug-exception')),
      'Bad request: the Content-Length header is not a valid length',
    );
    assert.deepEqual(more, []);
  });

  it('answers the good request, then the 400 for a broken body behind it', async () => {
    const raw = await rawExchange(
      debug,
      'GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\nPOST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    );
    const [first, second, ...more] = answers(raw);
    assert.deepEqual([first?.statusLine, first?.body], ['HTTP/1.1 200 OK', 'hello']);
    assert.equal(second?.statusLine, 'HTTP/1.1 400 Bad Request');
    assert.equal(
      decoded(second?.headers.get('x-debug-exception')),
      'Bad request: the chunked body has an invalid chunk size',
    );
    assert.deepEqual(more, []);
  });
});

describe('two Host headers are a 400 through the pipeline', () => {
  const twoHosts = 'GET /hello HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nConnection: close\r\n\r\n';

  it('refuses them with a token and a report', async () => {
    const answer = firstAnswer(await rawExchange(debug, twoHosts));
    const token = assertThroughPipeline(answer, '400 Bad Request');
    const message = 'The request has 2 Host headers; it must have one';
    assert.equal(decoded(answer.headers.get('x-debug-exception')), message);
    const report = await storedReport(token);
    assert.equal(report.status, 400);
    assert.equal(report.collectors.exception?.message, message);
  });

  it('refuses them in production too, showing nothing internal', async () => {
    assertNothingInternal(
      firstAnswer(
        await rawExchange(
          production,
          twoHosts.replace('Connection: close\r\n', 'Accept: text/plain\r\nConnection: close\r\n'),
        ),
      ),
      '400 Bad Request',
      ['Host', 'evil'],
    );
  });
});

describe('each framing error is named for what it is', () => {
  const cases: Array<[string, string, string]> = [
    [
      'a duplicate Content-Length',
      'Content-Length: 1\r\nContent-Length: 1\r\n\r\na',
      'Bad request: the Content-Length header is sent more than once',
    ],
    [
      'Content-Length, then chunked',
      'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'Bad request: Content-Length and Transfer-Encoding cannot be sent together',
    ],
    [
      'chunked, then Content-Length',
      'Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
      'Bad request: Content-Length and Transfer-Encoding cannot be sent together',
    ],
  ];
  for (const [what, headers, expected] of cases) {
    it(`answers ${what} with its own message`, async () => {
      const answer = firstAnswer(await rawExchange(debug, `POST /hello HTTP/1.1\r\nHost: localhost\r\n${headers}`));
      assert.equal(answer.statusLine, 'HTTP/1.1 400 Bad Request');
      assert.equal(decoded(answer.headers.get('x-debug-exception')), expected);
    });
  }
});

describe('bad percent-encoding gets a token and a report', () => {
  it('answers /%zz with 400, a token and the stored report', async () => {
    const answer = await ask(debug, { path: '/%zz', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 400);
    const token = String(answer.headers['x-debug-token']);
    assert.match(token, /^[0-9a-f]{6}$/);
    assert.equal(JSON.parse(answer.body).debugToken, token);
    const report = await storedReport(token);
    assert.equal(report.status, 400);
    assert.equal(report.collectors.exception?.message, "'/%zz' is not a valid url component");
  });
});

describe('the service lives on', () => {
  it('still answers /hello in both modes', async () => {
    assert.equal((await ask(debug, { path: '/hello' })).body, 'hello');
    assert.equal((await ask(production, { path: '/hello' })).body, 'hello');
  });
});
