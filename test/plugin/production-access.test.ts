/**
 * Issue 45, item 3, in plugin mode: in production the application's `profilerAccess`
 * check decides who opens the profiler (its own authentication, as Telescope's and Pulse's
 * gates do), instead of PROFILER_SECRET; without credentials every profiler path is the
 * application's ordinary 404. Over real sockets, reading the reports a debug instance of the
 * same application wrote to the same store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions, type VigilOptions } from '../../src/index.js';
import { SecretCredentials } from '../../src/profiler/access/credentials.js';
import { ask, type Answer, type Ask } from '../support/service.js';

const SECRET = 'a plugin secret of thirty-two characters at least';

interface App {
  app: FastifyInstance;
  logs: Array<{ level: number; msg: string }>;
  ask(request: Ask): Promise<Answer>;
}

async function startApp(env: Record<string, string>, options: Omit<VigilOptions, 'config'> = {}): Promise<App> {
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'info', ...env });
  const logs: App['logs'] = [];
  const app = Fastify(
    vigilFastifyOptions(config, {
      logOutput: { write: (line: string) => (logs.push(JSON.parse(line) as App['logs'][number]), true) },
    }),
  );
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 }, ...options });
  app.get('/hello', async () => ({ hello: 'world' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, logs, ask: (request) => ask({ url: `http://127.0.0.1:${port}`, ca: undefined }, request) };
}

/** The application's answer for a path it has no route for, asked the same way. */
async function assertOrdinary404(app: App, answer: Answer, request: Ask): Promise<void> {
  const unrouted = await app.ask({ ...request, path: '/no-such-page' });
  assert.equal(answer.status, 404, request.path);
  assert.equal(answer.body, unrouted.body, request.path);
  assert.deepEqual(Object.keys(answer.headers).sort(), Object.keys(unrouted.headers).sort(), request.path);
}

let varDir: string;
let token: string;

before(async () => {
  varDir = mkdtempSync(join(tmpdir(), 'vigil-plugin-prod-access-'));
  const debug = await startApp({ APP_ENV: 'dev', VAR_DIR: varDir });
  try {
    token = String((await debug.ask({ path: '/hello?from=debug' })).headers['x-debug-token']);
  } finally {
    await debug.app.close();
  }
});

describe("the application's profilerAccess check decides, instead of the secret", () => {
  let production: App;
  let checked = 0;
  before(async () => {
    production = await startApp(
      { APP_ENV: 'prod', VAR_DIR: varDir, PROFILER_SECRET: SECRET },
      {
        profilerAccess: async (request) => {
          checked++;
          if (request.headers['x-role'] === 'broken') throw new Error('session store down');
          return request.headers['x-role'] === 'admin';
        },
      },
    );
  });
  after(() => production.app.close());

  it('opens the list and a report to whom it admits', async () => {
    const list = await production.ask({
      path: '/_profiler',
      headers: { 'x-role': 'admin', accept: 'application/json' },
    });
    assert.equal(list.status, 200);
    assert.ok((JSON.parse(list.body) as Array<{ token: string }>).some((summary) => summary.token === token));
    const report = await production.ask({ path: `/_profiler/${token}`, headers: { 'x-role': 'admin' } });
    assert.equal(report.status, 200);
    assert.match(report.body, /hello\?from=debug/);
    assert.equal(report.headers['x-frame-options'], 'DENY');
  });

  it('gives anyone else the ordinary 404: no role, another role, the secret itself, another site’s page', async () => {
    const strangers: Array<Record<string, string>> = [
      {},
      { 'x-role': 'user' },
      { authorization: `Bearer ${SECRET}` },
      { 'x-role': 'admin', 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of strangers) {
      const request = { path: '/_profiler', headers };
      await assertOrdinary404(production, await production.ask(request), request);
    }
    // No login page either: the application has its own.
    const login = { path: '/_profiler/login', headers: { 'x-role': 'admin' } };
    assert.equal((await production.ask(login)).status, 404);
  });

  it('refuses, and says why in the log, when the check throws', async () => {
    const request = { path: '/_profiler', headers: { 'x-role': 'broken' } };
    await assertOrdinary404(production, await production.ask(request), request);
    assert.ok(
      production.logs.some(
        (line) => line.level === 40 && /profilerAccess check failed.*session store down/.test(line.msg),
      ),
    );
  });

  it('says at start what opens the profiler', () => {
    assert.ok(
      production.logs.some((line) =>
        /; the profiler at http:\/\/127\.0\.0\.1:\d+\/_profiler, to whom the application's profilerAccess admits$/.test(
          line.msg,
        ),
      ),
      JSON.stringify(production.logs),
    );
  });

  it('is asked for profiler paths only', async () => {
    const before = checked;
    assert.equal((await production.ask({ path: '/hello' })).status, 200);
    assert.equal(checked, before);
  });
});

describe('as a plugin, PROFILER_SECRET alone opens the profiler too', () => {
  let production: App;
  before(async () => {
    production = await startApp({ APP_ENV: 'prod', VAR_DIR: varDir, PROFILER_SECRET: SECRET });
  });
  after(() => production.app.close());

  it('answers the bearer, and no one else', async () => {
    const opened = await production.ask({
      path: `/_profiler/${token}`,
      headers: { authorization: `Bearer ${SECRET}` },
    });
    assert.equal(opened.status, 200);
    const request = { path: `/_profiler/${token}`, headers: { authorization: 'Bearer not-it' } };
    await assertOrdinary404(production, await production.ask(request), request);
    assert.ok(production.logs.some((line) => line.level === 40 && /a wrong bearer secret/.test(line.msg)));
  });

  it('opens a session through its login page, with the kernel parsing the form', async () => {
    const key = new SecretCredentials(SECRET).loginKey;
    const login = await production.ask({
      method: 'POST',
      path: `/_profiler/login?key=${key}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: SECRET }).toString(),
    });
    assert.equal(login.status, 303);
    const [cookie = ''] = login.headers['set-cookie'] as string[];
    const home = await production.ask({ path: '/_profiler/latest', headers: { cookie: cookie.split(';')[0]! } });
    assert.equal(home.status, 200);
    assert.ok(
      production.logs.some((line) => /_profiler, to a bearer of PROFILER_SECRET or its login page$/.test(line.msg)),
    );
  });
});

describe('without the secret or a check, production mounts no profiler', () => {
  it('answers its paths with the ordinary 404, even with a bearer', async () => {
    const production = await startApp({ APP_ENV: 'prod', VAR_DIR: varDir });
    try {
      assert.equal(production.app.vigil.routes.known.filter((route) => route.name.startsWith('_profiler')).length, 0);
      const request = { path: '/_profiler', headers: { authorization: `Bearer ${SECRET}` } };
      await assertOrdinary404(production, await production.ask(request), request);
    } finally {
      await production.app.close();
    }
  });
});
