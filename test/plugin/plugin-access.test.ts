/**
 * Issue 26, items 3 and 4: in plugin mode, who may open the profiler and see debug output
 * is decided by vigil alone (the socket's address, walked back only through TRUSTED_PROXIES),
 * whatever the application's own `trustProxy`; and a debug-mode server listening beyond
 * loopback says so, and gives other clients the production rendering. The outsider is a
 * real peer outside loopback: this machine's own address on another interface.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { NO_OUTSIDE_ADDRESS, outsideAddress } from '../support/outside-address.js';
import { ROOT } from '../support/root.js';
import { ask, type Answer, type Ask } from '../support/service.js';

const OUTSIDE = outsideAddress() ?? '192.0.2.2';

interface App {
  app: FastifyInstance;
  port: number;
  /** The lines the application logged, parsed. */
  logs: Array<{ level: number; msg: string }>;
  /** Asks from loopback. */
  local(request: Ask): Promise<Answer>;
  /** Asks from the address outside loopback. */
  outsider(request: Ask): Promise<Answer>;
}

/** An application with vigil registered, its own Fastify options spread over vigil's, listening on `host`. */
async function startApp({
  env = {},
  own = {},
  host = '0.0.0.0',
}: {
  env?: Record<string, string>;
  own?: Record<string, unknown>;
  host?: string;
} = {}): Promise<App> {
  const config = loadConfig({
    TLS: '0',
    LOG_LEVEL: 'info',
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-plugin-access-')),
    ...env,
  });
  const logs: App['logs'] = [];
  const app = Fastify({
    ...vigilFastifyOptions(config, {
      logOutput: { write: (line: string) => (logs.push(JSON.parse(line) as App['logs'][number]), true) },
    }),
    ...own,
  });
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get('/fail', async () => {
    throw new Error('native failure at db.internal.example:5432');
  });
  app.get('/page', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send('<!DOCTYPE html><html><body><p>page</p></body></html>'),
  );
  await app.listen({ host, port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    port,
    logs,
    local: (request) => ask({ url: `http://127.0.0.1:${port}`, ca: undefined }, request),
    outsider: (request) => ask({ url: `http://${OUTSIDE}:${port}`, ca: undefined }, request),
  };
}

const debugHeaders = (answer: Answer) => Object.keys(answer.headers).filter((name) => name.startsWith('x-debug-'));

describe("profiler access never depends on the application's trustProxy", { skip: NO_OUTSIDE_ADDRESS }, () => {
  let trusting: App;
  let behindProxy: App;
  before(async () => {
    [trusting, behindProxy] = await Promise.all([
      startApp({ own: { trustProxy: true } }),
      // vigil trusts the outside address as its proxy; the application trusts anyone.
      startApp({ env: { TRUSTED_PROXIES: OUTSIDE }, own: { trustProxy: true } }),
    ]);
  });
  after(() => Promise.all([trusting?.app.close(), behindProxy?.app.close()]));

  it('refuses an outsider that claims to be loopback in X-Forwarded-For', async () => {
    for (const path of ['/_profiler', '/_profiler/latest', '/_profiler/search']) {
      const answer = await trusting.outsider({ path, headers: { 'x-forwarded-for': '127.0.0.1' } });
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(answer.body, /Latest requests|id="token"/, path);
    }
  });

  it('serves a loopback peer whatever X-Forwarded-For says', async () => {
    const answer = await trusting.local({ path: '/_profiler', headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(answer.status, 200);
  });

  it("walks X-Forwarded-For back through vigil's TRUSTED_PROXIES only", async () => {
    // The proxy forwards the name its client asked for: one the profiler answers.
    const admitted = await behindProxy.outsider({
      path: '/_profiler',
      headers: { 'x-forwarded-for': '127.0.0.1', 'x-forwarded-host': 'localhost:8443' },
    });
    assert.equal(admitted.status, 200);
    for (const forwarded of ['203.0.113.7', '127.0.0.1, 203.0.113.7', 'not-an-address', '']) {
      const refused = await behindProxy.outsider({
        path: '/_profiler',
        headers: { 'x-forwarded-for': forwarded, 'x-forwarded-host': 'localhost:8443' },
      });
      assert.equal(refused.status, 404, forwarded);
    }
  });
});

describe('debug output goes only to clients that may open the profiler', { skip: NO_OUTSIDE_ADDRESS }, () => {
  let open: App;
  let allowing: App;
  before(async () => {
    [open, allowing] = await Promise.all([startApp(), startApp({ env: { PROFILER_ALLOW: `${OUTSIDE}/32` } })]);
  });
  after(() => Promise.all([open?.app.close(), allowing?.app.close()]));

  it('says at start, in one warning, that debug mode listens beyond loopback', () => {
    const warnings = open.logs.filter((line) => line.level === 40 && /debug/i.test(line.msg));
    assert.equal(warnings.length, 1, JSON.stringify(open.logs));
    assert.match(warnings[0]!.msg, /0\.0\.0\.0/);
    assert.match(warnings[0]!.msg, /APP_ENV=prod/);
  });

  it("gives an outsider a handler's error in the production rendering", async () => {
    for (const accept of ['text/html', 'application/json', 'text/plain']) {
      const answer = await open.outsider({ path: '/fail', headers: { accept } });
      assert.equal(answer.status, 500, accept);
      assert.deepEqual(debugHeaders(answer), [], accept);
      assert.doesNotMatch(answer.body, /native failure|db\.internal|Error:|\.ts\b/, accept);
      assert.ok(!answer.body.includes(ROOT), accept);
    }
    const problem = JSON.parse(
      (await open.outsider({ path: '/fail', headers: { accept: 'application/json' } })).body,
    ) as Record<string, unknown>;
    assert.deepEqual(problem, {
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: 'Internal Server Error',
    });
  });

  it('gives an outsider the production 404, with no token', async () => {
    const answer = await open.outsider({ path: '/robots.txt' });
    assert.equal(answer.status, 404);
    assert.deepEqual(debugHeaders(answer), []);
    assert.doesNotMatch(answer.body, /robots\.txt|No route found/);
  });

  it("puts no toolbar in an outsider's page", async () => {
    const answer = await open.outsider({ path: '/page' });
    assert.equal(answer.status, 200);
    assert.doesNotMatch(answer.body, /vigil-toolbar/);
    assert.deepEqual(debugHeaders(answer), []);
  });

  it("answers an outsider's malformed request without debug headers", async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect({ host: OUTSIDE, port: open.port }, () =>
        socket.write('GET / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'),
      );
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 400 /);
    assert.doesNotMatch(raw, /x-debug-/i);
  });

  it('still records the outsider’s requests for the profiler’s users', async () => {
    await open.outsider({ path: '/fail?probe=outsider' });
    await open.app.vigil.profiler!.writer.flush();
    const found = await open.local({
      path: `/_profiler/search?ip=${OUTSIDE}&url=probe`,
      headers: { accept: 'application/json' },
    });
    const results = JSON.parse(found.body) as Array<{ status: number }>;
    assert.deepEqual(
      results.map((result) => result.status),
      [500],
    );
  });

  it('keeps the debug rendering, headers and toolbar for loopback', async () => {
    const failure = await open.local({ path: '/fail' });
    assert.match(String(failure.headers['x-debug-exception']), /native%20failure/);
    assert.match(String(failure.headers['x-debug-token']), /^[0-9a-f]{6}$/);
    assert.match((await open.local({ path: '/page' })).body, /vigil-toolbar/);
  });

  it('gives the debug rendering to an outsider in PROFILER_ALLOW', async () => {
    const answer = await allowing.outsider({ path: '/fail' });
    assert.match(String(answer.headers['x-debug-exception']), /native%20failure/);
    assert.match((await allowing.outsider({ path: '/page' })).body, /vigil-toolbar/);
  });
});

describe('a debug-mode server on loopback only', () => {
  it('gives no warning at start', async () => {
    const local = await startApp({ host: '127.0.0.1' });
    try {
      assert.deepEqual(
        local.logs.filter((line) => line.level >= 40),
        [],
      );
    } finally {
      await local.app.close();
    }
  });
});
