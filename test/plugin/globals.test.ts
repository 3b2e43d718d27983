/**
 * What the plugin does to the process it shares with the application: a production
 * instance changes no global; a debug instance's taps (stack frames, console capture, fetch) are
 * gone once its `app.close()` has run; two instances, one debug and one production, keep
 * their own behaviour whatever their order; a `prepareStackTrace` that was there before
 * (an APM's, source-map-support's) still formats every stack.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { exceptionFile, lineOf } from '../support/answers.js';
import { ROOT } from '../support/root.js';
import { ask } from '../support/service.js';

const THIS_FILE = join(ROOT, 'test/plugin/globals.test.ts');
const CONSOLE_METHODS = ['log', 'info', 'debug', 'warn', 'error', 'trace'] as const;

/** The process-wide state the issue names, as values to compare. */
function globals(): Record<string, unknown> {
  return {
    prepareStackTrace: Error.prepareStackTrace,
    stackTraceLimit: Error.stackTraceLimit,
    sourceMapsEnabled: process.sourceMapsEnabled,
    fetch: globalThis.fetch,
    ...Object.fromEntries(CONSOLE_METHODS.map((method) => [`console.${method}`, console[method]])),
  };
}

async function startApp(
  debug: boolean,
  env: Record<string, string> = {},
): Promise<{ app: FastifyInstance; url: string; ca: undefined }> {
  const config = loadConfig({
    ...env,
    TLS: '0',
    APP_DEBUG: debug ? '1' : '0',
    LOG_LEVEL: 'info',
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-globals-')),
  });
  const app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get('/fail', async () => {
    throw new Error('native failure'); // raised: globals
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}`, ca: undefined };
}

describe('a production registration changes no process-wide state', () => {
  it('leaves Error.prepareStackTrace, Error.stackTraceLimit, source maps, fetch and console.* as they were, open and closed', async () => {
    const before = globals();
    const { app } = await startApp(false);
    assert.deepEqual(globals(), before);
    await app.close();
    assert.deepEqual(globals(), before);
  });
});

describe("a debug instance's taps are removed by its close", () => {
  it('taps the console and the stack formatting while open, and gives them back on close', async () => {
    const before = globals();
    const { app } = await startApp(true);
    assert.notEqual(console.log, before['console.log'], 'the console is tapped while the debug instance is open');
    assert.notEqual(Error.prepareStackTrace, before.prepareStackTrace, 'the stack formatting is tapped while open');
    assert.notEqual(globalThis.fetch, before.fetch, 'fetch is wrapped while open');
    await app.close();
    assert.deepEqual(globals(), before);
  });

  it('keeps the taps until the last of two debug instances closes', async () => {
    const before = globals();
    const first = await startApp(true);
    const second = await startApp(true);
    await first.app.close();
    const answer = await ask(second, { path: '/fail' });
    assert.equal(exceptionFile(answer).file, THIS_FILE, 'the open instance still has its frames');
    assert.notEqual(console.log, before['console.log']);
    await second.app.close();
    assert.deepEqual(globals(), before);
  });
});

describe('a production instance that keeps reports (PROFILER_KEEP) gives its taps back on close', () => {
  it('taps the console, the stack formatting and fetch while open, not after', async () => {
    const before = globals();
    const { app } = await startApp(false, { PROFILER_KEEP: 'errors' });
    assert.notEqual(console.log, before['console.log'], 'the console is tapped while open');
    assert.notEqual(Error.prepareStackTrace, before.prepareStackTrace, 'the stack formatting is tapped while open');
    assert.notEqual(globalThis.fetch, before.fetch, 'fetch is wrapped while open');
    await app.close();
    assert.deepEqual(globals(), before);
  });
});

describe('a debug and a production instance in one process', () => {
  for (const order of ['debug first', 'production first'] as const) {
    it(`each keeps its own behaviour (${order})`, async () => {
      const [debug, production] =
        order === 'debug first'
          ? [await startApp(true), await startApp(false)]
          : await Promise.all([startApp(false), startApp(true)]).then(([p, d]) => [d, p] as const);
      try {
        const debugMiss = await ask(debug, { path: '/nowhere' });
        assert.equal(debugMiss.status, 404);
        assert.ok(debugMiss.headers['x-debug-exception-file'], 'the debug 404 points at where it was raised');
        assert.ok(debugMiss.headers['x-debug-token']);
        const productionMiss = await ask(production, { path: '/nowhere' });
        assert.equal(productionMiss.status, 404);
        assert.equal(productionMiss.headers['x-debug-exception'], undefined, 'production shows no debug header');
        assert.equal(productionMiss.headers['x-debug-token'], undefined);
        const failure = await ask(debug, { path: '/fail' });
        assert.deepEqual(exceptionFile(failure), { file: THIS_FILE, line: lineOf(THIS_FILE, '// raised: globals') });
        assert.equal((await ask(production, { path: '/fail' })).headers['x-debug-exception-file'], undefined);
      } finally {
        await Promise.all([debug.app.close(), production.app.close()]);
      }
    });
  }
});

describe('a prepareStackTrace installed before the plugin still applies', () => {
  it("formats every stack as before, while the debug instance still has the error's frames", async () => {
    const previous = Error.prepareStackTrace;
    const custom = (error: Error, sites: NodeJS.CallSite[]) => `custom: ${error.message} (${sites.length} frames)`;
    Error.prepareStackTrace = custom;
    try {
      const { app, url } = await startApp(true);
      try {
        const probe = new Error('probe');
        assert.match(String(probe.stack), /^custom: probe \(\d+ frames\)$/);
        const failure = await ask({ url, ca: undefined }, { path: '/fail' });
        assert.deepEqual(exceptionFile(failure), { file: THIS_FILE, line: lineOf(THIS_FILE, '// raised: globals') });
      } finally {
        await app.close();
      }
      assert.equal(Error.prepareStackTrace, custom, 'the previous formatter is back in place');
    } finally {
      Error.prepareStackTrace = previous;
    }
  });
});
