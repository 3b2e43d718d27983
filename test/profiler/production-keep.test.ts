/**
 * Issue 45, items 1, 2 and 5's burst bound, over real sockets: in production PROFILER_KEEP
 * keeps the reports of errors and slow requests (PROFILER_SAMPLE a share of the rest), each
 * with every panel of a debug report, the client sees nothing of it, the error's log line
 * names the token, and a burst of errors keeps at most PROFILER_KEEP_MAX_PER_SECOND a second.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import type { Report, ReportSummary } from '../../src/profiler/model/report.js';
import { runStatement } from '../fixtures/kept-routes.js';
import { runVigil } from '../support/command-line.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, ROOT, startService, type Answer, type Service } from '../support/service.js';
import { openStoreOf } from '../support/stores.js';

const ROUTES = 'test/fixtures/kept-routes.ts';

interface Stored {
  summaries: ReportSummary[];
  /** The paths (with their query) of the stored reports, sorted. */
  paths: string[];
  read(path: string): Report;
}

/** A report's URL without its origin. */
const pathOf = (url: string) => {
  const { pathname, search } = new URL(url, 'http://localhost');
  return pathname + search;
};

/** Every report the stopped service's store holds, by URL. */
async function storedReports(varDir: string): Promise<Stored> {
  const store = await openStoreOf(varDir);
  try {
    const { reports: summaries } = await store.search({ limit: 10_000 });
    const full = new Map<string, Report>();
    for (const summary of summaries) full.set(pathOf(summary.url), (await store.read(summary.token))!);
    const paths = [...full.keys()].sort();
    return { summaries, paths, read: (path) => full.get(path) ?? assert.fail(`no report of ${path}: ${paths}`) };
  } finally {
    await store.close();
  }
}

/** The JSON log lines of an output, parsed. */
function logLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** An application in production with vigil registered as a plugin, `settings` over the defaults; its log lines go to `write`. */
async function productionPlugin(
  settings: Record<string, string>,
  write: (line: string) => unknown = () => true,
): Promise<FastifyInstance> {
  const config = loadConfig({
    APP_ENV: 'prod',
    TLS: '0',
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-kept-')),
    ...settings,
  });
  const app = Fastify(vigilFastifyOptions(config, { logOutput: { write } }));
  await app.register(vigil, { config });
  return app;
}

/**
 * Runs `use` against a fixture application started in a process of its own (where nothing has
 * asked for request contexts yet), given the URL it prints; the process is ended after.
 */
async function inOwnProcess(fixture: string, use: (url: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [url] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    await use(url);
  } finally {
    child.kill();
    await once(child, 'exit');
  }
}

/** What `read` gives once it gives something, read again every 10 ms for up to 2 s. */
async function until<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 200; tries++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return assert.fail('nothing within 2 s');
}

function debugHeaders(answer: Pick<Answer, 'headers'>): string[] {
  return Object.keys(answer.headers).filter((name) => name.startsWith('x-debug') || name === 'server-timing');
}

describe('standalone, PROFILER_KEEP=errors,slow: the 500 and the slow request are kept, the fast 200 is not', () => {
  let service: Service;
  const answers: Record<string, Answer> = {};
  let stored: Stored;
  let output: string;

  before(async () => {
    service = await startInProcess({
      APP_ENV: 'prod',
      ROUTES,
      LOG_LEVEL: 'warn',
      PROFILER_KEEP: 'errors,slow',
      PROFILER_SLOW_REQUEST: '50ms',
    });
    for (const path of ['/orders/fail', '/fast', '/slow']) answers[path] = await ask(service, { path });
    await service.stop();
    output = service.output();
    stored = await storedReports(service.varDir);
  });

  it('answers as production always did: no debug header, no trace, no token', () => {
    const failed = answers['/orders/fail']!;
    assert.equal(failed.status, 500);
    assert.ok(!failed.body.includes('order 7'), failed.body);
    for (const answer of Object.values(answers)) assert.deepEqual(debugHeaders(answer), []);
    assert.equal(answers['/fast']!.body, 'fast');
  });

  it('keeps the 500 with its exception and cause, its logs, its statement and every panel', () => {
    const report = stored.read('/orders/fail');
    assert.equal(report.status, 500);
    const sections = report.collectors as Record<string, Record<string, unknown>>;
    for (const name of ['request', 'response', 'exception', 'routing', 'performance', 'memory', 'logs', 'database'])
      assert.ok(sections[name], `no ${name} section: ${Object.keys(sections).join(', ')}`);
    const exception = sections.exception as { class: string; message: string; cause?: { class: string } };
    assert.equal(exception.message, 'order 7 has no total');
    assert.equal(exception.cause?.class, 'RangeError');
    const logs = sections.logs as { lines: Array<{ message: string }> };
    assert.ok(
      logs.lines.some((line) => line.message === 'looking order 7 up'),
      JSON.stringify(logs.lines),
    );
    const database = sections.database as { texts: string[] };
    assert.equal(database.texts.length, 1);
    assert.match(database.texts[0]!, /FROM orders/);
  });

  it("names the report's token in the error's log line, and the command line opens it", async () => {
    const line = logLines(output).find((entry) => entry.msg === 'order 7 has no total');
    assert.ok(line, output);
    const token = line.report;
    assert.equal(token, stored.read('/orders/fail').token);
    const shown = await runVigil(['profiler:show', String(token)], { VAR_DIR: service.varDir });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /order 7 has no total/);
  });

  it('keeps the request over PROFILER_SLOW_REQUEST, and not the fast 200', () => {
    assert.equal(stored.read('/slow').status, 200);
    assert.deepEqual(stored.paths, ['/orders/fail', '/slow']);
  });
});

// Its own process: in this one, the tests' own HTTP calls have long asked for scopes.
describe('production follows a request through its async context from the first statement on', () => {
  let stored: Stored;

  before(async () => {
    const service = await startService({ APP_ENV: 'prod', ROUTES, PROFILER_KEEP: 'errors', TLS: '0' });
    try {
      // The process's first statement: no request had entered its context, none holds it.
      await ask(service, { path: '/orders/fail?first' });
      await ask(service, { path: '/orders/fail?second' });
    } finally {
      await service.stop();
    }
    stored = await storedReports(service.varDir);
  });

  it("files the statements of the requests that begin after it, and not the first one's", () => {
    assert.equal(stored.read('/orders/fail?first').collectors.database, undefined);
    const database = stored.read('/orders/fail?second').collectors.database as { texts: string[] };
    assert.match(database.texts[0]!, /FROM orders/);
  });

  it('gives the first, whose collectors started only once it was kept, every panel and its stages', () => {
    const report = stored.read('/orders/fail?first');
    const sections = report.collectors as Record<string, Record<string, unknown>>;
    for (const name of ['request', 'response', 'exception', 'routing', 'performance', 'memory', 'logs'])
      assert.ok(sections[name], `no ${name} section: ${Object.keys(sections).join(', ')}`);
    assert.equal((sections.request as { method: string }).method, 'GET');
    const stages = Object.keys((sections.performance as { stages: Record<string, number> }).stages);
    for (const stage of ['handler', 'sending']) assert.ok(stages.includes(stage), stages.join(', '));
  });

  it("files each request's own logger's lines from the first, by the request's id", () => {
    for (const path of ['/orders/fail?first', '/orders/fail?second']) {
      const logs = stored.read(path).collectors.logs as { lines: Array<{ message: string }> };
      assert.ok(
        logs.lines.some((line) => line.message === 'looking order 7 up'),
        JSON.stringify(logs.lines),
      );
    }
  });
});

describe('standalone, PROFILER_SAMPLE=1 alone keeps every report', () => {
  it('keeps the fast 200s', async () => {
    const service = await startInProcess({ APP_ENV: 'prod', ROUTES, PROFILER_SAMPLE: '1' });
    for (let i = 0; i < 3; i++) assert.deepEqual(debugHeaders(await ask(service, { path: `/fast?n=${i}` })), []);
    await service.stop();
    assert.deepEqual((await storedReports(service.varDir)).paths, ['/fast?n=0', '/fast?n=1', '/fast?n=2']);
  });

  it('keeps a request whose client left before its answer, as 499', async () => {
    const service = await startInProcess({ APP_ENV: 'prod', ROUTES, PROFILER_SAMPLE: '1' });
    await assert.rejects(ask(service, { path: '/slow?left', timeoutMs: 30 }));
    // The handler goes on after the client left; its answer is written to no one.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await service.stop();
    const stored = await storedReports(service.varDir);
    assert.deepEqual(stored.paths, ['/slow?left']);
    const left = stored.read('/slow?left');
    assert.equal(left.status, 499);
    // Its collectors started once it was kept, after the socket closed: the client is still known.
    assert.equal(left.ip, '127.0.0.1');
    assert.equal((left.collectors.request as { remoteAddress: string | null }).remoteAddress, '127.0.0.1');
  });
});

// Its own process: in this one, collectors start at arrival (see above), and the request collector's start reads the client.
describe('as a plugin, a report kept of a request whose client left names its client', () => {
  it('has the address of a client whose connection closed before its collectors started', async () => {
    await inOwnProcess('test/fixtures/left-client-app.ts', async (url) => {
      const { hostname, port } = new URL(url);
      const socket = connect(Number(port), hostname, () =>
        socket.write(`GET /late?left=1 HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`),
      );
      socket.on('error', () => {});
      // The client leaves before the 100 ms answer; its report is kept as the connection closes.
      setTimeout(() => socket.destroy(), 30);
      // Production's writer writes in batches, a second or more apart.
      let kept: Array<{ status: number; ip: string }> = [];
      for (let tries = 0; tries < 100 && kept.length === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        kept = (await (await fetch(`${url}/kept?url=left`)).json()) as typeof kept;
      }
      assert.deepEqual(kept, [{ status: 499, ip: '127.0.0.1' }]);
    });
  });
});

describe('a burst of errors keeps at most PROFILER_KEEP_MAX_PER_SECOND reports a second', () => {
  it('stores the bound, and counts the rest in a log line', async () => {
    const bound = 5;
    const service = await startInProcess({
      APP_ENV: 'prod',
      ROUTES,
      PROFILER_KEEP: 'errors',
      PROFILER_KEEP_MAX_PER_SECOND: String(bound),
    });
    const sent = 300;
    const started = performance.now();
    for (let batch = 0; batch < sent / 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => ask(service, { path: '/burst' })));
      for (const answer of answers) assert.equal(answer.status, 500);
    }
    const seconds = (performance.now() - started) / 1000;
    await service.stop();
    const { summaries } = await storedReports(service.varDir);
    assert.ok(summaries.length >= bound, `${summaries.length} kept`);
    assert.ok(summaries.length <= bound * (Math.ceil(seconds) + 1), `${summaries.length} kept in ${seconds} s`);
    const counted = [...service.output().matchAll(/(\d+) reports? not kept: over PROFILER_KEEP_MAX_PER_SECOND/g)];
    assert.equal(
      counted.reduce((sum, match) => sum + Number(match[1]), 0),
      sent - summaries.length,
      service.output(),
    );
  });
});

describe('as a plugin, PROFILER_KEEP=errors keeps the 500 only, with its calls', () => {
  let app: FastifyInstance;
  let url: string;
  const lines: string[] = [];

  before(async () => {
    app = await productionPlugin({ LOG_LEVEL: 'warn', PROFILER_KEEP: 'errors' }, (line) => lines.push(line));
    app.get('/fail', async (request) => {
      request.log.warn('charging card 4');
      await runStatement('UPDATE cards SET charged = 1 WHERE id = 4');
      await (await fetch(`${url}/fast`)).text();
      throw new Error('card 4 declined');
    });
    app.get('/fast', async () => 'fast');
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());

  it('keeps the report of the 500, which its log line names, and none of the 200', async () => {
    const failed = await fetch(`${url}/fail`);
    assert.equal(failed.status, 500);
    const fast = await fetch(`${url}/fast`);
    assert.equal(await fast.text(), 'fast');
    for (const answer of [failed, fast])
      assert.deepEqual(
        [...answer.headers.keys()].filter((name) => name.startsWith('x-debug') || name === 'server-timing'),
        [],
      );
    const line = logLines(lines.join('')).find((entry) => entry.msg === 'card 4 declined');
    assert.ok(typeof line?.report === 'string', lines.join(''));
    const report = await app.vigil.report(line.report);
    assert.equal(report?.exception?.message, 'card 4 declined');
    assert.ok(report?.logs?.lines.some((logged) => logged.message === 'charging card 4'));
    assert.equal(report?.database?.statements.length, 1);
    assert.deepEqual(
      report?.httpClient?.calls.map((call) => [call.method, pathOf(call.url), call.status]),
      [['GET', '/fast', 200]],
    );
    assert.ok(report?.request && report.response && report.routing && report.performance);
    const { reports } = await app.vigil.profiler!.store.search({ limit: 100 });
    assert.deepEqual(
      reports.map((found) => pathOf(found.url)),
      ['/fail'],
    );
  });
});

describe("as a plugin, a kept report's stages and the overview's routes come from the handler's own mark", () => {
  let app: FastifyInstance;
  let url: string;

  before(async () => {
    app = await productionPlugin({ LOG_LEVEL: 'silent', PROFILER_KEEP: 'errors' });
    await app.register(
      async (api) => {
        api.get<{ Params: { id: number } }>(
          '/items/:id',
          { schema: { params: { type: 'object', properties: { id: { type: 'integer' } } } } },
          async (request) => ({ id: request.params.id }),
        );
        // A preHandler hook that takes 40 ms, before a handler that fails at once.
        api.get('/guarded', { preHandler: async () => new Promise((resolve) => setTimeout(resolve, 40)) }, async () => {
          throw new Error('guarded and failed');
        });
        // The route's own onRequest hooks, one or a list, that take 40 ms: before the body stage.
        const waitOnRequest = async () => new Promise<void>((resolve) => setTimeout(resolve, 40));
        api.get('/checked', { onRequest: waitOnRequest }, async () => {
          throw new Error('checked and failed');
        });
        api.get('/checked-twice', { onRequest: [async () => {}, waitOnRequest] }, async () => {
          throw new Error('checked twice and failed');
        });
      },
      { prefix: '/api' },
    );
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());

  it("counts the preHandler hooks' time in the body stage, not the handler's", async () => {
    const failed = await fetch(`${url}/api/guarded`);
    assert.equal(failed.status, 500);
    await failed.text();
    // The report is made once the response has been written, which may be after the client read it.
    const found = await until(async () => (await app.vigil.profiler!.store.search({ limit: 10 })).reports[0]);
    const report = await app.vigil.report(found.token);
    const stages = report?.performance?.stages ?? {};
    assert.deepEqual(Object.keys(stages), ['routing', 'body', 'handler', 'rendering', 'sending']);
    assert.ok(stages.body! >= 35, `body ${stages.body} ms`);
    assert.ok(stages.handler! < 35, `handler ${stages.handler} ms`);
  });

  it("counts a route's own onRequest hooks in the routing stage, given one or a list", async () => {
    for (const path of ['/api/checked', '/api/checked-twice']) {
      const failed = await fetch(`${url}${path}`);
      assert.equal(failed.status, 500);
      await failed.text();
      const found = await until(
        async () => (await app.vigil.profiler!.store.search({ url: path, limit: 1 })).reports[0],
      );
      const stages = (await app.vigil.report(found.token))?.performance?.stages ?? {};
      assert.deepEqual(Object.keys(stages), ['routing', 'body', 'handler', 'rendering', 'sending'], path);
      assert.ok(stages.routing! >= 35, `${path}: routing ${stages.routing} ms`);
      assert.ok(stages.body! < 35, `${path}: body ${stages.body} ms`);
    }
  });

  it('without a secret, answers and counts a request for the profiler as any unrouted one', async () => {
    const answer = await fetch(`${url}/_profiler/overview?from=loopback`);
    assert.equal(answer.status, 404);
    await answer.text();
    await until(async () => {
      const summary = await app.vigil.profiler!.overview.summary('1h');
      const row = summary.routes.find((counted) => counted.route === 'GET (no route)');
      return row?.requests === 1 ? row : undefined;
    });
  });

  it('counts a prefixed route under its pattern, a request its schema refused too', async () => {
    for (const path of ['/api/items/1', '/api/items/2', '/api/items/x']) await (await fetch(`${url}${path}`)).text();
    const items = await until(async () => {
      const summary = await app.vigil.profiler!.overview.summary('1h');
      const row = summary.routes.find((counted) => counted.route === 'GET /api/items/:id');
      return row?.requests === 3 ? row : undefined;
    });
    assert.equal(items.clientErrors, 1);
  });
});

// Its own process: in this one, the tests' own HTTP calls have long asked for scopes, and every collector starts at arrival.
describe("as a plugin, an application's collector starts as each request arrives, kept or not", () => {
  it('runs its start for the fast 200s no report is kept of', async () => {
    await inOwnProcess('test/fixtures/arrivals-app.ts', async (url) => {
      for (let i = 0; i < 3; i++) await (await fetch(`${url}/fast`)).text();
      assert.equal(await (await fetch(`${url}/arrivals`)).text(), '4');
    });
  });
});

describe('as a plugin, the start line says which reports production keeps and where', () => {
  it('names the outcomes kept, the store, and how to read them without a secret', async () => {
    const lines: string[] = [];
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-kept-'));
    const app = await productionPlugin(
      { LOG_LEVEL: 'info', PROFILER_KEEP: 'errors,slow', PROFILER_SLOW_REQUEST: '300ms', VAR_DIR: varDir },
      (line) => lines.push(line),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    await app.close();
    const said = logLines(lines.join('')).map((entry) => String(entry.msg));
    assert.ok(
      said.some(
        (message) =>
          message.includes('reports of errors and requests over 300 ms kept in ') &&
          message.includes(varDir) &&
          message.endsWith('read with vigil profiler:list (PROFILER_SECRET opens the pages)'),
      ),
      said.join('\n'),
    );
  });
});
