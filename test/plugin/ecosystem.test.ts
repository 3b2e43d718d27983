/**
 * vigil beside the Fastify ecosystem: each plugin of docs/plugin.md's compatibility matrix,
 * installed from npm, registered beside vigil in a real application, over real sockets.
 * The application's plugins keep their word: `@fastify/cors`'s policy, `formbody`'s and
 * `multipart`'s parsers, an API's JSON errors, the application's logger.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import sensible from '@fastify/sensible';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import underPressure from '@fastify/under-pressure';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import * as vigilPackage from '../../src/index.js';
import { loadConfig, vigil, vigilFastifyOptions, type VigilOptions } from '../../src/index.js';
import type { PerformanceSection } from '../../src/profiler/collectors/performance.js';
import { tokenOf } from '../support/answers.js';
import { ask, type Answer, type Ask } from '../support/service.js';

interface App {
  app: FastifyInstance;
  url: string;
  ca: undefined;
  /** The log lines written so far, as JSON text. */
  lines: string[];
}

interface AppSetup {
  env?: Record<string, string>;
  options?: Omit<VigilOptions, 'config'>;
  /** Before vigil is registered. */
  before?: (app: FastifyInstance) => unknown;
  /** After vigil, before the routes below. */
  plugins?: (app: FastifyInstance) => unknown;
}

const apps: FastifyInstance[] = [];
after(() => Promise.all(apps.map((app) => app.close())));

/** An application as docs/plugin.md would have it: vigil, the plugin under test, a few routes. */
async function startApp({ env = {}, options = {}, before, plugins }: AppSetup = {}): Promise<App> {
  const config = loadConfig({
    TLS: '0',
    LOG_LEVEL: 'info',
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-ecosystem-')),
    ...env,
  });
  const lines: string[] = [];
  const app = Fastify(vigilFastifyOptions(config, { logOutput: { write: (line: string) => lines.push(line) } }));
  apps.push(app);
  await before?.(app);
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 }, ...options });
  await plugins?.(app);
  app.get('/hello', async () => ({ hello: 'world' }));
  app.post('/echo', async (request) => ({ body: request.body }));
  app.get('/page', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send('<!DOCTYPE html><html><head><title>page</title></head><body><p>page</p></body></html>'),
  );
  app.get('/boom', async () => {
    throw new Error('native failure');
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}`, ca: undefined, lines };
}

const get = (app: App, request: Ask): Promise<Answer> => ask(app, request);
const FRONT = 'https://front.example';
const preflight = (origin: string) => ({
  method: 'OPTIONS',
  path: '/echo',
  headers: { origin, 'access-control-request-method': 'POST' },
});

describe('@fastify/cors: the application owns the cross-origin policy', () => {
  const withCors = (env: Record<string, string> = {}, options: AppSetup['options'] = {}) =>
    startApp({ env, options, plugins: (app) => app.register(cors, { origin: [FRONT], credentials: true }) });

  it('keeps a 404 a 404 beside its OPTIONS * route, in debug and production', async () => {
    const [debug, production] = await Promise.all([withCors(), withCors({ APP_ENV: 'prod' })]);
    for (const app of [debug, production]) {
      const answer = await get(app, { path: '/robots.txt' });
      assert.equal(answer.status, 404, answer.body);
      assert.equal(answer.headers.allow, undefined);
    }
    // A path with routes still gets its 405, without the catch-all's OPTIONS in Allow.
    const refused = await get(debug, { method: 'DELETE', path: '/hello' });
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.allow, 'GET');
  });

  it("answers the front end's credentialed preflight with the application's policy", async () => {
    for (const app of [await withCors(), await withCors({}, { cors: true })]) {
      const answer = await get(app, preflight(FRONT));
      assert.equal(answer.status, 204);
      assert.equal(answer.headers['access-control-allow-origin'], FRONT);
      assert.equal(answer.headers['access-control-allow-credentials'], 'true');
    }
  });

  it('gives an origin the application did not allow no CORS header, in debug and production', async () => {
    for (const app of [await withCors(), await withCors({ APP_ENV: 'prod' }), await withCors({}, { cors: true })]) {
      const answer = await get(app, { path: '/hello', headers: { origin: 'http://localhost:5173' } });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['access-control-allow-origin'], undefined);
    }
  });
});

describe("vigil's own CORS in plugin mode", () => {
  it('is off unless asked for: no preflight answer and no header, even from localhost', async () => {
    const app = await startApp({ env: { APP_ENV: 'prod' } });
    const answer = await get(app, { path: '/hello', headers: { origin: 'http://localhost:5173' } });
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
    const pre = await get(app, preflight('http://localhost:5173'));
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
  });

  it('answers preflights with `cors: true`', async () => {
    const app = await startApp({ options: { cors: true } });
    const answer = await get(app, preflight('http://localhost:5173'));
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['access-control-allow-origin'], 'http://localhost:5173');
  });
});

describe('@fastify/formbody and @fastify/multipart: the application parsers win', () => {
  it('starts with formbody registered after vigil, and formbody parses the form', async () => {
    const app = await startApp({
      plugins: (instance) => instance.register(formbody, { parser: (text) => ({ parsedBy: 'formbody', text }) }),
    });
    const answer = await get(app, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { body: { parsedBy: 'formbody', text: 'a=1' } });
  });

  it("limits the application's parsers to Fastify's 1 MiB, or PARSED_BODY_MAX_SIZE, not POST_MAX_SIZE", async () => {
    const form = (size: number) => ({
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: `a=${'x'.repeat(size - 2)}`,
    });
    const [fastifyDefault, set] = await Promise.all([
      startApp({ plugins: (instance) => instance.register(formbody) }),
      startApp({ env: { PARSED_BODY_MAX_SIZE: '3M' }, plugins: (instance) => instance.register(formbody) }),
    ]);
    const refused = await get(fastifyDefault, form(2 * 1024 * 1024));
    assert.equal(refused.status, 413, refused.body.slice(0, 200));
    assert.equal(refused.headers['content-type'], 'application/problem+json', "through vigil's pipeline");
    assert.equal((await get(fastifyDefault, form(512 * 1024))).status, 200);
    assert.equal((await get(set, form(2 * 1024 * 1024))).status, 200);
    assert.equal((await get(set, form(4 * 1024 * 1024))).status, 413);
  });

  it('keeps a limit the application gives its parser', async () => {
    const app = await startApp({ plugins: (instance) => instance.register(formbody, { bodyLimit: 3 * 1024 * 1024 }) });
    const answer = await get(app, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `a=${'x'.repeat(2 * 1024 * 1024)}`,
    });
    assert.equal(answer.status, 200);
  });

  it("lets the application's JSON parser replace vigil's", async () => {
    const app = await startApp({
      plugins: (instance) =>
        instance.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
          done(null, { own: body }),
        ),
    });
    const answer = await get(app, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.deepEqual(JSON.parse(answer.body), { body: { own: '{}' } });
  });

  it("takes an upload to a native route with the application's @fastify/multipart", async () => {
    const app = await startApp({
      plugins: async (instance) => {
        await instance.register(multipart);
        instance.post('/upload', async (request) => {
          const file = await request.file();
          return { name: file?.filename, size: (await file?.toBuffer())?.length };
        });
      },
    });
    const boundary = 'x-boundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
    const answer = await get(app, {
      method: 'POST',
      path: '/upload',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { name: 'a.txt', size: 5 });
  });
});

describe("the application's answers in production", () => {
  it("keep Node's Date; the pipeline's errors carry the kernel's lower-case date, as in debug mode", async () => {
    const date = (answer: Answer) => answer.rawHeaderNames.filter((name) => name.toLowerCase() === 'date');
    const production = await startApp({ env: { APP_ENV: 'prod' } });
    assert.deepEqual(date(await get(production, { path: '/hello' })), ['Date']);
    for (const path of ['/missing', '/boom']) assert.deepEqual(date(await get(production, { path })), ['date']);
    const debug = await startApp();
    for (const path of ['/hello', '/missing', '/boom']) assert.deepEqual(date(await get(debug, { path })), ['date']);
  });
});

describe("an API's error contract in plugin mode", () => {
  it('answers `Accept: */*` and no Accept with JSON, a browser with HTML', async () => {
    const app = await startApp({ env: { APP_ENV: 'prod' } });
    for (const headers of [{ accept: '*/*' }, {}] as Array<Record<string, string>>) {
      const answer = await get(app, { path: '/missing', headers });
      assert.equal(answer.status, 404);
      assert.equal(answer.headers['content-type'], 'application/problem+json');
    }
    const browser = await get(app, {
      path: '/missing',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    assert.equal(browser.headers['content-type'], 'text/html; charset=UTF-8');
  });

  it('keeps the standalone HTML under `*/*` with `errorFormat: "html"`', async () => {
    const app = await startApp({ options: { errorFormat: 'html' } });
    const answer = await get(app, { path: '/missing', headers: { accept: '*/*' } });
    assert.equal(answer.headers['content-type'], 'text/html; charset=UTF-8');
  });

  it('answers in Fastify\'s shape in production with `errorShape: "fastify"`', async () => {
    const app = await startApp({ env: { APP_ENV: 'prod' }, options: { errorShape: 'fastify' } });
    const missing = await get(app, { path: '/missing', headers: { accept: 'application/json' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(JSON.parse(missing.body), { statusCode: 404, error: 'Not Found', message: 'Not Found' });
    const failed = await get(app, { path: '/boom' });
    assert.deepEqual(JSON.parse(failed.body), {
      statusCode: 500,
      error: 'Internal Server Error',
      message: 'Internal Server Error',
    });
  });

  it("parses bodies up to Fastify's 1 MiB unless PARSED_BODY_MAX_SIZE is set", async () => {
    const [plain, limited] = await Promise.all([startApp(), startApp({ env: { PARSED_BODY_MAX_SIZE: '1K' } })]);
    const body = JSON.stringify({ text: 'x'.repeat(900 * 1024) });
    const accepted = await get(plain, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.equal(accepted.status, 200);
    const over = await get(plain, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(1100 * 1024) }),
    });
    assert.equal(over.status, 413);
    const refused = await get(limited, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"' + 'x'.repeat(2048) + '"}',
    });
    assert.equal(refused.status, 413);
  });
});

describe('what the start says', () => {
  it('warns, naming vigil, of a root error handler set after it, and of routes declared before it', async () => {
    const app = await startApp({
      before: (instance) => void instance.get('/early', async () => 'early'),
      plugins: (instance) => void instance.setErrorHandler((_error, _request, reply) => reply.code(418).send('mine')),
    });
    const text = app.lines.join('');
    assert.match(text, /setErrorHandler[^"]*vigil/);
    assert.match(text, /before vigil[^"]*GET \/early[^"]*register vigil first/);
  });

  it('lets a root error handler hand errors to vigil with app.vigil.handleError', async () => {
    const app = await startApp({
      plugins: (instance) =>
        void instance.setErrorHandler((error, request, reply) => instance.vigil.handleError(error, request, reply)),
    });
    const answer = await get(app, { path: '/boom', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 500);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    assert.equal(answer.headers['x-debug-exception'], 'native%20failure');
  });

  it('says where the profiler is and where it stores reports', async () => {
    const app = await startApp();
    const text = app.lines.join('');
    assert.match(text, new RegExp(`profiler at ${app.url}/_profiler`));
    assert.match(text, /profiler\.sqlite/);
  });
});

describe("the application's logger", () => {
  it('takes logger options: their level and serializers', async () => {
    const config = loadConfig({
      TLS: '0',
      LOG_LEVEL: 'info',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-ecosystem-')),
    });
    const lines: string[] = [];
    const app = Fastify(
      vigilFastifyOptions(config, {
        logger: { level: 'warn' },
        logOutput: { write: (line: string) => lines.push(line) },
      }),
    );
    apps.push(app);
    await app.register(vigil, { config });
    await app.ready();
    app.log.info('quiet');
    app.log.warn('loud');
    assert.deepEqual(
      lines.map((line) => JSON.parse(line).msg),
      ['loud'],
    );
  });

  it('takes a logger instance', async () => {
    const config = loadConfig({
      TLS: '0',
      LOG_LEVEL: 'info',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-ecosystem-')),
    });
    const lines: string[] = [];
    const logger = pino({ level: 'info', base: { service: 'shop' } }, { write: (line: string) => lines.push(line) });
    const app = Fastify(vigilFastifyOptions(config, { logger }));
    apps.push(app);
    await app.register(vigil, { config });
    app.get('/logs', async (request) => {
      request.log.info('inside');
      return 'ok';
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    app.log.info('outside');
    assert.ok(
      lines.some((line) => JSON.parse(line).msg === 'outside' && JSON.parse(line).service === 'shop'),
      lines.join(''),
    );
  });

  it('writes an access line with `accessLog: true`', async () => {
    const app = await startApp({ options: { accessLog: true } });
    await get(app, { path: '/hello' });
    assert.ok(
      app.lines.some((line) => /GET \/hello 200 .* ms/.test(line)),
      app.lines.join(''),
    );
  });
});

describe('span and the toolbar in native routes', () => {
  it('exports span, recorded in a native route', async () => {
    const span = (vigilPackage as Record<string, unknown>).span as <T>(name: string, fn: () => T) => T;
    assert.equal(typeof span, 'function');
    const app = await startApp({
      plugins: (instance) => void instance.get('/steps', async () => span('load', async () => 'loaded')),
    });
    const answer = await get(app, { path: '/steps' });
    assert.equal(answer.body, 'loaded');
    await app.app.vigil.profiler!.writer.flush();
    const report = await app.app.vigil.profiler!.store.read(tokenOf(answer));
    assert.deepEqual(
      (report!.collectors.performance as PerformanceSection).spans?.map((one) => one.name),
      ['load'],
    );
  });

  it("puts the toolbar on the application's pages, never on the kernel's 500 page", async () => {
    const app = await startApp();
    const page = await get(app, { path: '/page' });
    assert.match(page.body, /sf-toolbar|vigil-toolbar/);
    const failed = await get(app, { path: '/boom', headers: { accept: 'text/html' } });
    assert.equal(failed.status, 500);
    assert.doesNotMatch(failed.body, /sf-toolbar|vigil-toolbar/);
  });
});

describe('the rest of the matrix: each plugin beside vigil', () => {
  it('@fastify/helmet: its headers, and the toolbar admitted by its policy', async () => {
    const app = await startApp({
      plugins: (instance) =>
        instance.register(helmet, { contentSecurityPolicy: { directives: { 'style-src': ["'self'"] } } }),
    });
    const page = await get(app, { path: '/page' });
    assert.match(String(page.headers['content-security-policy']), /style-src-elem 'self' 'nonce-/);
    assert.match(String(page.headers['content-security-policy']), /script-src-elem 'self' 'nonce-/);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal((await get(app, { path: '/missing' })).status, 404);
  });

  it('@fastify/cookie: cookies set and read', async () => {
    const app = await startApp({
      plugins: async (instance) => {
        await instance.register(cookie);
        instance.get('/cookie', async (request, reply) =>
          reply.setCookie('seen', 'yes').send({ had: request.cookies.seen ?? null }),
        );
      },
    });
    const answer = await get(app, { path: '/cookie', headers: { cookie: 'seen=before' } });
    assert.deepEqual(JSON.parse(answer.body), { had: 'before' });
    assert.match(String(answer.headers['set-cookie']), /^seen=yes/);
  });

  it('@fastify/static at the root: files served, a 404 for the rest, no 405 for other methods', async () => {
    const root = mkdtempSync(join(tmpdir(), 'vigil-static-'));
    writeFileSync(join(root, 'file.txt'), 'static text');
    const app = await startApp({ plugins: (instance) => instance.register(fastifyStatic, { root }) });
    assert.equal((await get(app, { path: '/file.txt' })).body, 'static text');
    assert.equal((await get(app, { path: '/absent.txt' })).status, 404);
    const post = await get(app, { method: 'POST', path: '/nothing' });
    assert.equal(post.status, 404);
  });

  it('@fastify/swagger and swagger-ui: the document lists the routes, the UI is served', async () => {
    const app = await startApp({
      plugins: async (instance) => {
        await instance.register(swagger, { openapi: { info: { title: 'shop', version: '1' } } });
        await instance.register(swaggerUi, { routePrefix: '/documentation' });
      },
    });
    const document = JSON.parse((await get(app, { path: '/documentation/json' })).body) as {
      paths: Record<string, unknown>;
    };
    assert.ok('/hello' in document.paths, Object.keys(document.paths).join(', '));
    assert.equal((await get(app, { path: '/documentation/static/swagger-ui.css' })).status, 200);
  });

  it('@fastify/rate-limit: its 429 through the pipeline', async () => {
    const app = await startApp({
      env: { APP_ENV: 'prod' },
      plugins: (instance) => instance.register(rateLimit, { max: 2, timeWindow: 60_000 }),
    });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await get(app, { path: '/hello', headers: { accept: 'application/json' } })).status);
    assert.deepEqual(statuses, [200, 200, 429]);
  });

  it('@fastify/sensible: its errors through the pipeline', async () => {
    const app = await startApp({
      env: { APP_ENV: 'prod' },
      plugins: async (instance) => {
        await instance.register(sensible);
        instance.get('/teapot', async () => {
          throw instance.httpErrors.imateapot();
        });
      },
    });
    const answer = await get(app, { path: '/teapot' });
    assert.equal(answer.status, 418);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
  });

  it('@fastify/under-pressure: its status route', async () => {
    const app = await startApp({
      plugins: (instance) => instance.register(underPressure, { exposeStatusRoute: true }),
    });
    const answer = await get(app, { path: '/status' });
    assert.equal(answer.status, 200);
    assert.equal((await get(app, { path: '/missing' })).status, 404);
  });
});
