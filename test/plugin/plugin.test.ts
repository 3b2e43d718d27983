/**
 * vigil registered as a plugin on an application's own Fastify instance: its native routes
 * (`app.get`, `app.route`, JSON schemas, routes of encapsulated plugins) get the whole
 * debug kernel, over real sockets.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { defineRoutes, loadConfig, RouteDefinitionError, vigil, vigilFastifyOptions } from '../../src/index.js';
import type { Report } from '../../src/profiler/model/report.js';
import type { ExceptionSection } from '../../src/profiler/collectors/exception.js';
import type { LogsSection } from '../../src/profiler/collectors/logs.js';
import type { RoutingSection } from '../../src/profiler/collectors/routing.js';
import { debugMessage, exceptionFile, lineOf, tokenOf } from '../support/answers.js';
import { ROOT } from '../support/root.js';
import { ask, type Answer, type Ask } from '../support/service.js';
import { startTogether } from '../support/start-together.js';

const THIS_FILE = join(ROOT, 'test/plugin/plugin.test.ts');

interface App {
  app: FastifyInstance;
  url: string;
  ca: undefined;
  report(token: string): Promise<Report>;
}

/** An ordinary Fastify application with vigil registered first, listening on a free port. */
async function startApp(env: Record<string, string> = {}): Promise<App> {
  const config = loadConfig({
    TLS: '0',
    LOG_LEVEL: 'info',
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-plugin-')),
    ...env,
  });
  const app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  // vigil's own CORS and the standalone's HTML for `*/*`: the plugin's defaults are tested in ecosystem.test.ts.
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 }, cors: true, errorFormat: 'html' });
  app.get('/hello', async (request) => {
    request.log.info({ who: 'world' }, 'saying hello');
    return { hello: 'world' };
  });
  const user = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } as const;
  app.post('/users', { schema: { body: user } }, async (request) => ({ created: request.body })); // declared: users
  app.route({ method: 'GET', url: '/items/:id(^\\d+$)', handler: async (request) => request.params });
  app.get('/dir/', async () => 'dir');
  app.get('/fail', async () => {
    throw new Error('native failure'); // raised: fail
  });
  app.get('/slow', async () => {
    await sleep(2500);
    return 'late';
  });
  await app.register(
    async (child) => {
      child.put('/things/:name', async () => 'put');
    },
    { prefix: '/v1' },
  );
  // As @fastify/autoload makes of routes/accounts/index.js: the plugin's '/' under its prefix.
  await app.register(
    async (child) => {
      child.get('/', async () => 'accounts');
      child.delete('/', async () => 'deleted');
    },
    { prefix: '/accounts' },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    ca: undefined,
    async report(token) {
      const profiler = app.vigil.profiler!;
      await profiler.writer.flush();
      const report = await profiler.store.read(token);
      if (!report) throw new Error(`no report stored under ${token}`);
      return report;
    },
  };
}

let debug: App;
let production: App;
before(async () => {
  [debug, production] = await startTogether<[App, App]>(
    [startApp({ MAX_EXECUTION_TIME: '1', POST_MAX_SIZE: '64K' }), startApp({ APP_ENV: 'prod' })],
    (started) => started.app.close(),
  );
});
after(() => Promise.all([debug.app.close(), production.app.close()]));

const get = (app: App, request: Ask): Promise<Answer> => ask(app, request);
const section = <T>(report: Report, name: string) => report.collectors[name] as T;

describe("a native route's report names the route that answered", () => {
  it('stores a report for a 200, with the route, its parameters and its log lines', async () => {
    const answer = await get(debug, { path: '/hello' });
    assert.equal(answer.status, 200);
    const report = await debug.report(tokenOf(answer));
    assert.deepEqual(section<RoutingSection>(report, 'routing').matched, {
      name: 'GET /hello',
      path: '/hello',
      methods: ['GET'],
    });
    const logs = section<LogsSection>(report, 'logs');
    assert.ok(
      logs.lines.some((line) => line.message === 'saying hello'),
      JSON.stringify(logs),
    );
  });

  it('names a route with a parameter as declared, and its parameters', async () => {
    const answer = await get(debug, { path: '/items/42' });
    assert.equal(answer.status, 200);
    const routing = section<RoutingSection>(await debug.report(tokenOf(answer)), 'routing');
    assert.deepEqual(routing.matched, { name: 'GET /items/:id(^\\d+$)', path: '/items/:id(^\\d+$)', methods: ['GET'] });
    assert.deepEqual(routing.params, { id: '42' });
  });

  it('names the route for a HEAD request to a GET route', async () => {
    const answer = await get(debug, { method: 'HEAD', path: '/hello' });
    assert.equal(answer.status, 200);
    assert.equal(section<RoutingSection>(await debug.report(tokenOf(answer)), 'routing').matched?.name, 'GET /hello');
  });
});

describe('405, 404 and 301 are decided from the routes the application declared natively', () => {
  it('answers a known path with another method 405 and Allow', async () => {
    const answer = await get(debug, { method: 'POST', path: '/hello' });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET');
    assert.equal(debugMessage(answer), `No route found for "POST ${debug.url}/hello": Method Not Allowed (Allow: GET)`);
  });

  it('knows the routes of encapsulated plugins, prefix included', async () => {
    const answer = await get(debug, { path: '/v1/things/x' });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'PUT');
  });

  it("knows a prefixed plugin's '/' route under both spellings Fastify serves", async () => {
    for (const path of ['/accounts', '/accounts/']) {
      assert.equal((await get(debug, { method: 'DELETE', path })).status, 200, path);
      const refused = await get(debug, { method: 'POST', path });
      assert.equal(refused.status, 405, path);
      assert.equal(refused.headers.allow, 'GET, DELETE', path);
    }
    const listed = debug.app.vigil.routes.known.filter((route) => route.path.startsWith('/accounts'));
    assert.deepEqual(
      listed.map(({ name }) => name),
      ['GET /accounts', 'GET /accounts/', 'DELETE /accounts', 'DELETE /accounts/'],
    );
  });

  it('redirects to the path with its trailing slash', async () => {
    const answer = await get(debug, { path: '/dir?x=1' });
    assert.equal(answer.status, 301);
    assert.equal(answer.headers.location, '/dir/?x=1');
  });

  it("answers /robots.txt with the seed's 404", async () => {
    const answer = await get(debug, { path: '/robots.txt', headers: { accept: '*/*' } });
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['content-type'], 'text/html; charset=UTF-8');
    assert.equal(debugMessage(answer), `No route found for "GET ${debug.url}/robots.txt"`);
  });

  it("explains the closest route's miss with the requirement of its Fastify parameter", async () => {
    const answer = await get(debug, { path: '/items/abc' });
    assert.equal(answer.status, 404);
    const routing = section<RoutingSection>(await debug.report(tokenOf(answer)), 'routing');
    assert.equal(routing.matched, null);
    assert.deepEqual(routing.closest?.[0], {
      name: 'GET /items/:id(^\\d+$)',
      path: '/items/:id(^\\d+$)',
      methods: ['GET'],
      reason: 'parameter "id" = "abc" does not match the requirement \\d+',
    });
  });
});

describe('errors of native routes go through the one pipeline', () => {
  it("renders a schema's validation error as problem+json, raised at the route's declaration", async () => {
    const answer = await get(debug, {
      method: 'POST',
      path: '/users',
      headers: { 'content-type': 'application/json', accept: 'application/problem+json' },
      body: '{}',
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    const declared = { file: THIS_FILE, line: lineOf(THIS_FILE, '// declared: users') };
    assert.deepEqual(exceptionFile(answer), declared);
    const problem = JSON.parse(answer.body) as {
      status: number;
      detail: string;
      exception: { class: string; file: string; line: number };
    };
    assert.equal(problem.status, 400);
    assert.equal(problem.detail, "body must have required property 'name'");
    assert.deepEqual(
      [problem.exception.class, problem.exception.file, problem.exception.line],
      ['SchemaValidationHttpError', declared.file, declared.line],
    );
    const exception = section<ExceptionSection>(await debug.report(tokenOf(answer)), 'exception');
    assert.deepEqual(
      [exception.code, exception.file, exception.line],
      ['VIGIL_ERR_VALIDATION', declared.file, declared.line],
    );
  });

  it("renders a handler's throw with the debug headers, raised where it was thrown", async () => {
    const answer = await get(debug, { path: '/fail' });
    assert.equal(answer.status, 500);
    assert.match(answer.body, /<title>Error 500 Internal Server Error<\/title>/);
    assert.equal(debugMessage(answer), 'native failure');
    assert.deepEqual(exceptionFile(answer), { file: THIS_FILE, line: lineOf(THIS_FILE, '// raised: fail') });
  });

  it('answers a malformed URL through the pipeline, with a token', async () => {
    const answer = await get(debug, { path: '/%zz', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    assert.match(String(answer.headers['x-debug-token']), /^[0-9a-f]{6}$/);
  });

  it('shows nothing internal in production', async () => {
    const answer = await get(production, { method: 'POST', path: '/hello' });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET');
    assert.equal(answer.headers['x-debug-token'], undefined);
    assert.equal(answer.headers['x-debug-exception'], undefined);
  });
});

describe('the profiler, CORS and the limits apply to native routes', () => {
  it('serves the profiler pages to loopback', async () => {
    const answer = await get(debug, { path: '/_profiler' });
    assert.equal(answer.status, 200);
    assert.match(answer.body, /Latest requests/);
  });

  it('answers a CORS preflight before routing', async () => {
    const answer = await get(debug, {
      method: 'OPTIONS',
      path: '/users',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['access-control-allow-origin'], 'http://localhost:3000');
  });

  it('refuses a JSON body nested too deep', async () => {
    const body = `{"name":${'['.repeat(1500)}${']'.repeat(1500)}}`;
    const answer = await get(debug, {
      method: 'POST',
      path: '/users',
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.equal(answer.status, 400);
    assert.match(debugMessage(answer), /nested more than 1000 levels deep/);
  });

  it('refuses a declared body over POST_MAX_SIZE before reading it', async () => {
    const answer = await get(debug, {
      method: 'POST',
      path: '/users',
      headers: { 'content-type': 'application/json', 'content-length': String(65 * 1024) },
      body: Buffer.alloc(65 * 1024, 0x20),
    });
    assert.equal(answer.status, 413);
  });

  it('stops an async native handler at MAX_EXECUTION_TIME', async () => {
    const answer = await get(debug, { path: '/slow' });
    assert.equal(answer.status, 500);
    assert.equal(debugMessage(answer), 'Maximum execution time of 1 second exceeded');
  });
});

describe('routes declared with the routes API, and isolated routes, in plugin mode', () => {
  it('serves routes API routes beside the native ones, both in Allow', async () => {
    const config = loadConfig({
      TLS: '0',
      LOG_LEVEL: 'silent',
      APP_DEBUG: '0',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-plugin-')),
    });
    const app = Fastify(vigilFastifyOptions(config));
    await app.register(vigil, {
      config,
      routes: [defineRoutes((routes) => void routes.post('/both', () => 'declared'))],
    });
    app.get('/both', async () => 'native');
    await app.ready();
    const [declared, native, refused] = await Promise.all([
      app.inject({ method: 'POST', url: '/both' }),
      app.inject({ method: 'GET', url: '/both' }),
      app.inject({ method: 'DELETE', url: '/both' }),
    ]);
    assert.deepEqual(
      [declared.body, native.body, refused.statusCode, refused.headers.allow],
      ['declared', 'native', 405, 'POST, GET'],
    );
    await app.close();
  });

  it('refuses an isolated native route when it is added, saying why', async () => {
    const config = loadConfig({
      TLS: '0',
      LOG_LEVEL: 'silent',
      APP_DEBUG: '0',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-plugin-')),
    });
    const app = Fastify(vigilFastifyOptions(config));
    await app.register(vigil, { config });
    assert.throws(
      () => app.get('/spin', { config: { isolated: true } }, async () => 'spun'),
      (error: unknown) =>
        error instanceof RouteDefinitionError &&
        /^route GET \/spin: only routes declared with defineRoutes in a routes module can be isolated/.test(
          error.message,
        ),
    );
    await app.close();
  });
});

describe('a route Fastify refuses is refused as it would be without vigil', () => {
  for (const settings of [{ APP_DEBUG: '1' }, { APP_ENV: 'prod', PROFILER_KEEP: 'errors' }]) {
    it(`refuses a handler that is not a function (${Object.values(settings).join(', ')})`, async () => {
      const config = loadConfig({
        ...settings,
        TLS: '0',
        LOG_LEVEL: 'silent',
        VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-plugin-')),
      });
      const app = Fastify(vigilFastifyOptions(config));
      await app.register(vigil, { config });
      try {
        // Fastify's own refusal: no handler of vigil's may stand in for the missing function.
        assert.throws(() => app.route({ method: 'GET', url: '/x', handler: 'not a function' as never }), TypeError);
      } finally {
        await app.close();
      }
    });
  }
});
