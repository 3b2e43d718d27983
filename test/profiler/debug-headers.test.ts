/**
 * Issue 44, item 2, over real sockets: in debug mode every answer to a client the profiler
 * admits carries `Server-Timing` (its stages, the database and HTTP client totals, the
 * total), and a cross-origin answer to an allowed origin exposes the debug headers to the
 * other origin's script, whether vigil's own CORS policy or `@fastify/cors` wrote it. In
 * production, and for a client the profiler does not admit, none of it.
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { ask, type Answer } from '../support/service.js';

interface App {
  url: string;
  ca: undefined;
}

const mysqlQuery = diagnosticsChannel.tracingChannel('mysql2:query');
const apps: FastifyInstance[] = [];
let upstream: Server;
let upstreamUrl: string;

before(async () => {
  upstream = createServer((_request, response) => response.end('upstream'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
});
after(async () => {
  await Promise.all(apps.map((app) => app.close()));
  upstream.close();
});

/** An application with vigil as docs/plugin.md has it; `plugins` registered after vigil. */
async function startApp(
  settings: Record<string, string>,
  options: { cors?: boolean } = {},
  plugins: (app: FastifyInstance) => unknown = () => undefined,
): Promise<App> {
  const config = loadConfig({
    TLS: '0',
    LOG_LEVEL: 'silent',
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-headers-')),
    ...settings,
  });
  const app = Fastify(vigilFastifyOptions(config));
  apps.push(app);
  await app.register(vigil, { config, ...options });
  await plugins(app);
  app.get('/hello', async () => ({ hello: 'world' }));
  // Two statements as mysql2 publishes them, and one outgoing call.
  app.get('/work', async () => {
    for (const id of [1, 2])
      await mysqlQuery.tracePromise(async () => [[{ id }]], { query: `SELECT * FROM t WHERE id = ${id}`, values: [] });
    return { upstream: await (await fetch(upstreamUrl)).text() };
  });
  app.get('/own-timing', async (_request, reply) =>
    reply.header('server-timing', 'cache;desc="Cache hit";dur=1.5').send('ok'),
  );
  // An onSend of the application's that fails once: the error's answer is sent again.
  const failedOnce = new WeakSet<object>();
  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.url !== '/send-twice' || failedOnce.has(request)) return payload;
    failedOnce.add(request);
    throw new Error('onSend failed');
  });
  app.get('/send-twice', async (_request, reply) => reply.header('server-timing', 'app;dur=2').send('ok'));
  app.get('/fail', async () => {
    throw new Error('broken');
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, ca: undefined };
}

interface Metric {
  name: string;
  desc: string | undefined;
  dur: number;
}

/** The Server-Timing metrics, checked against the header's grammar: `token;desc="...";dur=<number>`. */
function metricsOf(answer: Answer): Metric[] {
  const value = answer.headers['server-timing'];
  assert.equal(typeof value, 'string', 'one Server-Timing header');
  return String(value)
    .split(', ')
    .map((entry) => {
      const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:;desc="([^"\\]*)")?;dur=(\d+(?:\.\d+)?)$/.exec(entry);
      assert.ok(match, `"${entry}" is a metric`);
      return { name: match[1]!, desc: match[2], dur: Number(match[3]) };
    });
}

const ALLOWED = 'http://localhost:5173';

describe('Server-Timing in debug mode, for the clients the profiler admits', () => {
  let app: App;
  before(async () => {
    app = await startApp({ TRUSTED_PROXIES: '127.0.0.1' });
  });

  it('gives the stages, the database and HTTP client totals and the total of a routed answer', async () => {
    const metrics = metricsOf(await ask(app, { path: '/work' }));
    assert.deepEqual(
      metrics.map(({ name, desc }) => [name, desc]),
      [
        ['routing', 'Routing and hooks'],
        ['body', 'Reading the body'],
        ['handler', 'Handler'],
        ['db', '2 queries'],
        ['http', '1 HTTP call'],
        ['total', 'Total'],
      ],
    );
    const total = metrics.at(-1)!.dur;
    const stages = metrics.filter(({ name }) => ['routing', 'body', 'handler'].includes(name));
    const staged = stages.reduce((sum, { dur }) => sum + dur, 0);
    assert.ok(Math.abs(staged - total) < 0.01, `the stages (${staged}) add up to the total (${total})`);
    for (const { name, dur } of metrics.filter(({ name }) => name === 'db' || name === 'http'))
      assert.ok(dur <= total, `${name} (${dur}) within the total (${total})`);
  });

  it('times an unrouted answer and an error page too, without a word of the request', async () => {
    const missing = await ask(app, { path: '/nowhere";dur=1,evil;desc="x' });
    assert.equal(missing.status, 404);
    assert.deepEqual(
      metricsOf(missing).map(({ name }) => name),
      ['routing', 'rendering', 'total'],
    );
    const failed = await ask(app, { path: '/fail' });
    assert.deepEqual(
      metricsOf(failed).map(({ name }) => name),
      ['routing', 'body', 'handler', 'rendering', 'total'],
    );
  });

  it("keeps the application's own metrics, vigil's after them", async () => {
    const metrics = metricsOf(await ask(app, { path: '/own-timing' }));
    assert.deepEqual(metrics[0], { name: 'cache', desc: 'Cache hit', dur: 1.5 });
    assert.deepEqual(
      metrics.slice(1).map(({ name }) => name),
      ['routing', 'body', 'handler', 'total'],
    );
  });

  it('writes its metrics once on an answer sent again', async () => {
    const answer = await ask(app, { path: '/send-twice' });
    assert.equal(answer.status, 500);
    assert.deepEqual(
      metricsOf(answer).map(({ name }) => name),
      ['app', 'routing', 'body', 'handler', 'rendering', 'total'],
    );
  });

  it('gives none to a client the profiler does not admit', async () => {
    const answer = await ask(app, { path: '/hello', headers: { 'x-forwarded-for': '203.0.113.9' } });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['x-debug-token'], undefined);
    assert.equal(answer.headers['server-timing'], undefined);
  });
});

const EXPOSED = ['x-debug-token', 'x-debug-token-link', 'server-timing'];

/** The names an answer exposes, lower-cased. */
function exposedBy(answer: Answer): string[] {
  return String(answer.headers['access-control-expose-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

describe('no Server-Timing in production', () => {
  it('answers without it, nor any debug header to expose', async () => {
    const app = await startApp({ APP_ENV: 'prod' }, { cors: true });
    for (const path of ['/work', '/nowhere', '/fail']) {
      const answer = await ask(app, { path, headers: { origin: ALLOWED } });
      assert.equal(answer.headers['server-timing'], undefined, path);
      assert.equal(answer.headers['access-control-allow-origin'], ALLOWED, path);
      assert.deepEqual(exposedBy(answer), ['link'], `${path}: the policy's own names only`);
    }
  });
});

describe("a cross-origin answer to an allowed origin exposes the debug headers, with vigil's CORS policy", () => {
  let app: App;
  before(async () => {
    app = await startApp(
      { CORS_EXPOSE_HEADERS: 'X-Total', CORS_ALLOW_ORIGIN: '^http://localhost:5173$' },
      { cors: true },
    );
  });

  it('adds them to the names the policy exposes, on a route and on an error', async () => {
    for (const path of ['/hello', '/fail', '/nowhere']) {
      const answer = await ask(app, { path, headers: { origin: ALLOWED } });
      assert.equal(answer.headers['access-control-allow-origin'], ALLOWED, path);
      assert.deepEqual(exposedBy(answer), ['x-total', ...EXPOSED], path);
      assert.ok(answer.headers['x-debug-token'] && answer.headers['server-timing'], path);
    }
  });

  it('exposes nothing to an origin the policy does not allow', async () => {
    const answer = await ask(app, { path: '/hello', headers: { origin: 'http://foreign.example' } });
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
    assert.equal(answer.headers['access-control-expose-headers'], undefined);
  });
});

describe('a cross-origin answer to an allowed origin exposes the debug headers, with @fastify/cors', () => {
  let app: App;
  before(async () => {
    app = await startApp({}, {}, (fastify) =>
      fastify.register(cors, { origin: [ALLOWED], exposedHeaders: ['X-Page'] }),
    );
  });

  it("adds them to the plugin's exposed names", async () => {
    for (const path of ['/hello', '/fail']) {
      const answer = await ask(app, { path, headers: { origin: ALLOWED } });
      assert.equal(answer.headers['access-control-allow-origin'], ALLOWED, path);
      assert.deepEqual(exposedBy(answer), ['x-page', ...EXPOSED], path);
    }
  });

  it('exposes no debug header without an allowed origin', async () => {
    const answer = await ask(app, { path: '/hello' });
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
    assert.deepEqual(exposedBy(answer), ['x-page'], "the plugin's own names only");
    assert.ok(answer.headers['server-timing'], 'Server-Timing is for every admitted client');
  });
});
