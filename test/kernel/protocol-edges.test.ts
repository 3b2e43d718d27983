/**
 * Requests Node would answer by itself, or not at all (CONNECT, HTTP/1.1 without Host, an
 * Expect other than 100-continue), go through the one error pipeline; the headers built
 * from a request (Location, x-debug-token-link) hold only what a URI may hold.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { startTogether } from '../support/start-together.js';
import type { Service } from '../support/service.js';
import { rawExchange, rawHeader, statusLine } from '../support/raw-tls.js';

const services: Record<'debug' | 'prod', Service> = {} as Record<'debug' | 'prod', Service>;
before(async () => {
  [services.debug, services.prod] = await startTogether<[Service, Service]>(
    [
      startInProcess({ ROUTES: 'examples/demo-routes.ts', TRUSTED_PROXIES: '127.0.0.1,::1' }),
      startInProcess({ ROUTES: 'examples/demo-routes.ts', TRUSTED_PROXIES: '127.0.0.1,::1', APP_ENV: 'prod' }),
    ],
    (started) => started.stop(),
  );
});
after(() => Promise.all([services.debug.stop(), services.prod.stop()]));

const message = (raw: string) => decodeURIComponent(rawHeader(raw, 'x-debug-exception') ?? '');
const TOKEN = /^[0-9a-f]{6}$/;
/** A token link made only of URI characters, to this service's report. */
const WELL_FORMED_LINK = /^https:\/\/[a-z0-9.-]+(?::\d+)?\/_profiler\/[0-9a-f]{6}$/;

describe('CONNECT is answered 405 through the pipeline, and the connection closed', () => {
  for (const target of ['127.0.0.1:22', 'localhost:443', '[::1]:443', '/hello']) {
    it(`answers CONNECT ${target} with 405, an empty Allow, a token and Connection: close`, async () => {
      const raw = await rawExchange(services.debug, `CONNECT ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      assert.equal(statusLine(raw), 'HTTP/1.1 405 Method Not Allowed');
      assert.equal(rawHeader(raw, 'allow'), '');
      assert.equal(rawHeader(raw, 'connection'), 'close');
      assert.equal(rawHeader(raw, 'cache-control'), 'no-cache, private');
      assert.match(rawHeader(raw, 'x-debug-token') ?? '', TOKEN);
      assert.equal(message(raw), 'The CONNECT method is not supported: this service opens no tunnels');
    });
  }

  it('answers it in production without debug headers', async () => {
    const raw = await rawExchange(services.prod, 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: localhost\r\n\r\n');
    assert.equal(statusLine(raw), 'HTTP/1.1 405 Method Not Allowed');
    assert.equal(rawHeader(raw, 'cache-control'), 'no-cache, private');
    assert.doesNotMatch(raw, /x-debug-/i);
  });
});

describe('HTTP/1.1 without Host is a 400 through the pipeline; HTTP/1.0 may omit it', () => {
  it('answers HTTP/1.1 without Host with 400 VIGIL_ERR_INVALID_HOST, a token and a link to this service', async () => {
    const raw = await rawExchange(services.debug, 'GET /hello HTTP/1.1\r\n\r\n');
    assert.equal(statusLine(raw), 'HTTP/1.1 400 Bad Request');
    assert.equal(rawHeader(raw, 'cache-control'), 'no-cache, private');
    assert.equal(message(raw), 'The request has no Host header; HTTP/1.1 requires one');
    assert.equal(rawHeader(raw, 'connection'), 'close', 'the connection is not kept for a broken client');
    assert.match(raw, /VIGIL_ERR_INVALID_HOST/);
    assert.match(rawHeader(raw, 'x-debug-token') ?? '', TOKEN);
    assert.match(rawHeader(raw, 'x-debug-token-link') ?? '', WELL_FORMED_LINK);
  });

  it('answers it in production without debug headers', async () => {
    const raw = await rawExchange(services.prod, 'GET /hello HTTP/1.1\r\n\r\n');
    assert.equal(statusLine(raw), 'HTTP/1.1 400 Bad Request');
    assert.equal(rawHeader(raw, 'cache-control'), 'no-cache, private');
    assert.doesNotMatch(raw, /x-debug-/i);
  });

  it('serves HTTP/1.0 without Host, with links to the configured HOST:PORT', async () => {
    const service = services.debug;
    const hello = await rawExchange(service, 'GET /hello HTTP/1.0\r\n\r\n');
    assert.equal(statusLine(hello), 'HTTP/1.1 200 OK');
    assert.equal(
      rawHeader(hello, 'x-debug-token-link'),
      `https://localhost:${service.port}/_profiler/${rawHeader(hello, 'x-debug-token')}`,
    );
    const redirect = await rawExchange(service, 'GET /with-slash HTTP/1.0\r\n\r\n');
    assert.equal(statusLine(redirect), 'HTTP/1.1 301 Moved Permanently');
    assert.equal(rawHeader(redirect, 'location'), '/with-slash/');
  });
});

describe('an Expect other than 100-continue is a 417 through the pipeline', () => {
  for (const expect of ['x=1', '', '<vgl-2>']) {
    it(`answers Expect ${JSON.stringify(expect)} with 417, a token and the report`, async () => {
      const raw = await rawExchange(
        services.debug,
        `POST /nope HTTP/1.1\r\nHost: localhost\r\nExpect: ${expect}\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc`,
      );
      assert.equal(statusLine(raw), 'HTTP/1.1 417 Expectation Failed');
      assert.equal(rawHeader(raw, 'cache-control'), 'no-cache, private');
      assert.match(rawHeader(raw, 'x-debug-token') ?? '', TOKEN);
      assert.equal(message(raw), `The expectation "${expect}" cannot be met: only 100-continue is supported`);
      assert.match(raw, /VIGIL_ERR_EXPECTATION_FAILED/);
      assert.doesNotMatch(raw, /<vgl-2>/);
    });
  }

  it('still honours Expect: 100-continue', async () => {
    const raw = await rawExchange(
      services.debug,
      'GET /hello HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
    );
    assert.match(raw, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  });

  it('answers it in production without debug headers', async () => {
    const raw = await rawExchange(
      services.prod,
      'GET /hello HTTP/1.1\r\nHost: localhost\r\nExpect: x=1\r\nConnection: close\r\n\r\n',
    );
    assert.equal(statusLine(raw), 'HTTP/1.1 417 Expectation Failed');
    assert.equal(rawHeader(raw, 'cache-control'), 'no-cache, private');
    assert.doesNotMatch(raw, /x-debug-/i);
  });
});

describe('headers built from the request hold only URI characters', () => {
  it("percent-encodes in the slash redirect's Location what a URI may not hold, keeping what is encoded", async () => {
    const raw = await rawExchange(
      services.debug,
      'GET /with-slash?q=<vgl-3>&r=%3C&s="a"|{}^`\\ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    assert.equal(statusLine(raw), 'HTTP/1.1 301 Moved Permanently');
    assert.equal(rawHeader(raw, 'location'), '/with-slash/?q=%3Cvgl-3%3E&r=%3C&s=%22a%22%7C%7B%7D%5E%60%5C');
  });

  for (const [what, headers] of [
    ['a Host with markup', 'Host: <vgl-4>'],
    ['an X-Forwarded-Host with markup', 'Host: localhost\r\nX-Forwarded-Host: <vgl-4>.example'],
  ] as const) {
    it(`refuses ${what} with 400, and links the report at this service`, async () => {
      const raw = await rawExchange(services.debug, `GET /hello HTTP/1.1\r\n${headers}\r\nConnection: close\r\n\r\n`);
      assert.equal(statusLine(raw), 'HTTP/1.1 400 Bad Request');
      assert.match(message(raw), /^Invalid Host "<vgl-4>(\.example)?"\.$/);
      assert.match(rawHeader(raw, 'x-debug-token-link') ?? '', WELL_FORMED_LINK);
      assert.doesNotMatch(raw.split('\r\n\r\n')[0]!, /<vgl-4>/);
    });
  }
});
