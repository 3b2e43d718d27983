/**
 * CONTRACT section 7, malformed requests: a clear 400, 414 or 431, through the error
 * pipeline wherever the request reaches the app, a short raw answer where Node's parser
 * refuses it first; the process never crashes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, serviceForTests } from '../support/service.js';
import { debugMessage } from '../support/answers.js';
import { rawExchange as exchange, rawHeader, statusLine } from '../support/raw-tls.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/limit-routes.ts' }));

const rawExchange = (request: string | Buffer) => exchange(service(), request);

describe('a request target over 8 KB is a 414 through the pipeline', () => {
  it('answers a 10 KB URL with 414, a debug token and the stored report', async () => {
    const answer = await ask(service(), { path: `/hello?q=${'a'.repeat(10_000)}` });
    assert.equal(answer.status, 414);
    assert.equal(
      debugMessage(answer),
      `The request target is ${'/hello?q='.length + 10_000} bytes long; the limit is 8192`,
    );
    assert.match(String(answer.headers['x-debug-token']), /^[0-9a-f]{6}$/);
    assert.equal(answer.headers['cache-control'], 'no-cache, private');
  });

  it('answers a URL of exactly 8 KB normally', async () => {
    const path = `/hello?q=${'a'.repeat(8192 - '/hello?q='.length)}`;
    assert.equal(path.length, 8192);
    assert.equal((await ask(service(), { path })).status, 200);
  });

  it('answers a 70 KB request line, which Node refuses before the app, with a raw 431 naming line and headers', async () => {
    const raw = await rawExchange(`GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    assert.equal(statusLine(raw), 'HTTP/1.1 431 Request Header Fields Too Large');
    assert.equal(
      decodeURIComponent(rawHeader(raw, 'x-debug-exception') ?? ''),
      'The request line and headers are larger than 65536 bytes',
    );
    assert.equal(rawHeader(raw, 'connection'), 'close');
  });
});

describe('headers over 16 KB are a 431', () => {
  it('answers 20 KB of headers with 431 through the pipeline', async () => {
    const answer = await ask(service(), { path: '/hello', headers: { 'x-big': 'b'.repeat(20_000) } });
    assert.equal(answer.status, 431);
    assert.match(debugMessage(answer), /^The request headers are \d+ bytes long; the limit is 16384$/);
    assert.match(String(answer.headers['x-debug-token']), /^[0-9a-f]{6}$/);
  });

  it("answers 70 KB of headers, refused by Node, with a raw 431 in the pipeline's words", async () => {
    const raw = await rawExchange(`GET /hello HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'b'.repeat(70_000)}\r\n\r\n`);
    assert.equal(statusLine(raw), 'HTTP/1.1 431 Request Header Fields Too Large');
    assert.equal(rawHeader(raw, 'content-type'), 'text/plain; charset=UTF-8');
    assert.equal(rawHeader(raw, 'cache-control'), 'no-cache, private');
    assert.equal(
      decodeURIComponent(rawHeader(raw, 'x-debug-exception') ?? ''),
      'The request line and headers are larger than 65536 bytes',
    );
    assert.match(rawHeader(raw, 'x-debug-exception-file') ?? '', /src%2Fguards%2Fmalformed-request\.ts:\d+$/);
  });
});

describe('bad percent-encoding in the path is a 400 through the pipeline', () => {
  for (const path of ['/%zz', '/hello%', '/caf%C3']) {
    it(`answers ${path} with 400`, async () => {
      const answer = await ask(service(), { path, headers: { accept: 'application/json' } });
      assert.equal(answer.status, 400);
      assert.equal(debugMessage(answer), `'${path}' is not a valid url component`);
      assert.equal(answer.headers['content-type'], 'application/problem+json');
      assert.equal(answer.headers['cache-control'], 'no-cache, private');
      assert.equal(JSON.parse(answer.body).status, 400);
      assert.ok(answer.rawHeaderNames.includes('date'), "the date header is the kernel's, lower-case");
    });
  }
});

describe('broken framing is a raw 400 naming the problem', () => {
  const cases: Array<[string, string, string]> = [
    [
      'an invalid chunk size',
      'POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\nzz\r\n',
      'Bad request: the chunked body has an invalid chunk size',
    ],
    [
      'Content-Length with chunked',
      'POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'Bad request: Content-Length and Transfer-Encoding cannot be sent together',
    ],
    [
      'a Content-Length that is not a number',
      'POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n',
      'Bad request: the Content-Length header is not a valid length',
    ],
    ['a request that is not HTTP', 'HELLO THERE\r\n\r\n', 'Bad request: the method is not a valid HTTP method'],
  ];
  for (const [what, request, expected] of cases) {
    it(`answers ${what} with 400`, async () => {
      const raw = await rawExchange(request);
      assert.equal(statusLine(raw), 'HTTP/1.1 400 Bad Request');
      assert.equal(decodeURIComponent(rawHeader(raw, 'x-debug-exception') ?? ''), expected);
      assert.match(raw.split('\r\n\r\n')[1]!, new RegExp(`^400 Bad Request\\n\\n${expected}\\n`));
    });
  }
});

describe('the process never crashes on a malformed request', () => {
  it('still answers /hello after all of the above', async () => {
    assert.equal((await ask(service(), { path: '/hello' })).status, 200);
  });
});
