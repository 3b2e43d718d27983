/**
 * The request's logger (`request.log`) under vigil's Fastify options: made when the
 * request's code first logs, and then the logger a pino child would have been from the
 * start (bound to the request's id, at the route's log level), over real sockets.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { ask, type Answer } from '../support/service.js';

interface LogLine {
  reqId?: string;
  msg?: string;
  level?: number;
  who?: string;
}

describe("a request's logger is made when its code logs", () => {
  const lines: LogLine[] = [];
  let children = 0;
  let app: FastifyInstance;
  let get: (path: string) => Promise<Answer>;

  before(async () => {
    const config = loadConfig({
      APP_ENV: 'prod',
      TLS: '0',
      LOG_LEVEL: 'info',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-logger-')),
    });
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
    // Every child, of the instance or of a child of it, goes through this own property.
    const child = logger.child;
    logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) {
      children++;
      return child.apply(this, args);
    } as typeof logger.child;
    app = Fastify(vigilFastifyOptions(config, { logger }));
    await app.register(vigil, { config });
    app.get('/quiet', async () => 'quiet');
    app.get('/below', async (request) => {
      request.log.debug('under the level');
      return 'below';
    });
    app.get('/talks', async (request) => {
      request.log.info({ who: 'world' }, 'saying hello');
      return 'talked';
    });
    app.get('/muted', { logLevel: 'error' }, async (request) => {
      request.log.info('not at this level');
      request.log.error('at this level');
      return 'muted';
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    get = (path) => ask({ url, ca: undefined }, { path });
  });

  after(() => app.close());

  it('makes no child logger for a request whose code does not log', async () => {
    const before = children;
    for (let i = 0; i < 20; i++) assert.equal((await get('/quiet')).status, 200);
    assert.equal(children - before, 0);
  });

  it('makes none for lines under the level', async () => {
    const before = children;
    assert.equal((await get('/below')).body, 'below');
    assert.equal(children - before, 0);
    assert.equal(
      lines.some((entry) => entry.msg === 'under the level'),
      false,
    );
  });

  it("writes a logging request's lines bound to its id", async () => {
    const before = children;
    assert.equal((await get('/talks')).body, 'talked');
    assert.equal(children - before, 1);
    const line = lines.find((entry) => entry.msg === 'saying hello');
    assert.equal(line?.who, 'world');
    assert.match(String(line?.reqId), /^req-/);
  });

  it("keeps the route's log level", async () => {
    assert.equal((await get('/muted')).body, 'muted');
    assert.equal(
      lines.some((entry) => entry.msg === 'not at this level'),
      false,
    );
    assert.equal(lines.find((entry) => entry.msg === 'at this level')?.level, 50);
  });

  it("defers the application's own children of app.log until they write", () => {
    const before = children;
    const part = app.log.child({ part: 'billing' });
    part.debug('under the level');
    assert.equal(children - before, 0);
    part.info('billed');
    assert.equal(children - before, 1);
    const line = lines.find((entry) => entry.msg === 'billed') as LogLine & { part?: string };
    assert.equal(line.part, 'billing');
  });

  it("leaves Fastify's own logger, which binds nothing, a pino logger", () => {
    assert.equal(typeof (app.log as unknown as { levels?: object }).levels, 'object');
    assert.equal(app.log.level, 'info');
  });
});

describe('a logger configured with a transport (issue 43, item 6)', () => {
  it("puts the request's lines in its report, and still sends them to the transport", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'vigil-transport-'));
    const file = join(directory, 'app.log');
    const config = loadConfig({ APP_ENV: 'dev', TLS: '0', LOG_LEVEL: 'info', VAR_DIR: directory });
    const transport = { target: 'pino/file', options: { destination: file, mkdir: true } };
    const app = Fastify(vigilFastifyOptions(config, { logger: { transport } }));
    try {
      await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
      app.get('/talks', async (request) => {
        request.log.info('through the transport');
        return 'talked';
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const answer = await ask({ url: `http://127.0.0.1:${port}`, ca: undefined }, { path: '/talks' });
      const report = await app.vigil.profiler!.read(String(answer.headers['x-debug-token']));
      const logs = report?.collectors.logs as { lines: Array<{ message: string }> } | undefined;
      assert.deepEqual(
        logs?.lines.map((line) => line.message),
        ['through the transport'],
      );
      // The transport's thread writes on its own time.
      for (
        let tries = 0;
        tries < 100 && !(existsSync(file) && readFileSync(file, 'utf8').includes('through the transport'));
        tries++
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(readFileSync(file, 'utf8'), /through the transport/);
    } finally {
      await app.close();
    }
  });
});
