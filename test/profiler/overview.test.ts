/**
 * Issue 45, item 4, over real sockets: the overview across requests. Two instances of an
 * application share one PostgreSQL store; each counts every request it serves (its route,
 * its pg statements, its outgoing calls, its exception's fingerprint) and flushes its
 * minutes there. Either instance's `/_profiler/overview`, and `vigil profiler:overview` on
 * the store, show one overview whose counts add up to the requests sent to both.
 */
// First: the tracing set-up is in place before pg is loaded, as docs/profiler.md says.
import { provider, stopInstrumenting } from '../support/tracing.js';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { runVigil } from '../support/command-line.js';
import { startPostgres, type PostgresServer } from '../support/postgres.js';

const pg = createRequire(import.meta.url)('pg') as typeof import('pg');

interface Summary {
  requests: number;
  routes: Array<{ route: string; requests: number; clientErrors: number; serverErrors: number; p95: number | null }>;
  statements: Array<{
    statement: string;
    count: number;
    worstRepeat: number;
    worstRepeatToken: string | null;
    routes: string[];
  }>;
  upstreams: Array<{ upstream: string; calls: number; errors: number }>;
  exceptions: Array<{ className: string; message: string; count: number; newestToken: string | null }>;
}

let postgres: PostgresServer;
let pool: Pool;
let upstream: Server;
let upstreamHost: string;
let dsn: string;
const instances: Array<{ app: FastifyInstance; url: string }> = [];

async function startInstance(): Promise<{ app: FastifyInstance; url: string }> {
  const config = loadConfig({
    TLS: '0',
    LOG_LEVEL: 'silent',
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-overview-')),
    PROFILER_DSN: dsn,
  });
  const app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get<{ Params: { id: string } }>('/users/:id', async (request) => {
    // An N+1: one statement per item of the page.
    for (let i = 0; i < 3; i++) await pool.query('SELECT $1::int AS id', [Number(request.params.id)]);
    return 'user';
  });
  app.get<{ Params: { id: string } }>('/boom/:id', async (request) => {
    throw new TypeError(`user ${request.params.id} has no cart`);
  });
  app.get('/upstream', async () => {
    const answer = await fetch(`http://${upstreamHost}/fail`);
    await answer.text();
    return 'called';
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url };
}

before(async () => {
  postgres = await startPostgres();
  dsn = await postgres.database('overview_store');
  pool = new pg.Pool({ connectionString: await postgres.database('overview_shop'), max: 4 });
  pool.on('error', () => undefined);
  upstream = createServer((_request, response) => {
    response.writeHead(503, { 'content-type': 'text/plain' });
    response.end('down');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamHost = `127.0.0.1:${(upstream.address() as { port: number }).port}`;
  instances.push(await startInstance(), await startInstance());
});

after(async () => {
  for (const { app } of instances) await app.close();
  await pool?.end();
  upstream?.close();
  stopInstrumenting();
  await provider.shutdown();
  await postgres?.close();
});

async function send(instance: { url: string }, paths: string[]): Promise<void> {
  for (const path of paths) await (await fetch(`${instance.url}${path}`)).text();
}

async function overviewOf(instance: { url: string }): Promise<Summary> {
  const answer = await fetch(`${instance.url}/_profiler/overview?window=1h`, {
    headers: { accept: 'application/json' },
  });
  assert.equal(answer.status, 200);
  return (await answer.json()) as Summary;
}

describe('the overview across requests, two instances on one PostgreSQL store', () => {
  before(async () => {
    const [one, two] = instances;
    await send(one!, ['/users/1', '/users/2', '/users/3', '/users/4', '/users/5', '/boom/11', '/boom/12']);
    await send(two!, ['/users/6', '/users/7', '/users/8', '/boom/13', '/upstream', '/upstream']);
    // What each counted goes to the store at its next flush: both flush now.
    for (const { app } of instances) await app.vigil.profiler!.overview.flush();
  });

  it('counts every request by route, with its 5xx and quantiles, across both instances', async () => {
    for (const instance of instances) {
      const summary = await overviewOf(instance);
      const byRoute = new Map(summary.routes.map((row) => [row.route, row]));
      assert.equal(summary.requests, 13);
      assert.deepEqual(
        [
          byRoute.get('GET /users/:id')?.requests,
          byRoute.get('GET /boom/:id')?.serverErrors,
          byRoute.get('GET /upstream')?.requests,
        ],
        [8, 3, 2],
      );
      assert.ok((byRoute.get('GET /users/:id')?.p95 ?? 0) > 0);
    }
  });

  it('groups statements by text, with the routes that ran them and the worst N+1', async () => {
    const summary = await overviewOf(instances[0]!);
    const select = summary.statements.find((row) => row.statement.includes('SELECT $1::int AS id'));
    assert.ok(select, JSON.stringify(summary.statements));
    assert.equal(select.count, 24);
    assert.equal(select.worstRepeat, 3);
    assert.deepEqual(select.routes, ['GET /users/:id']);
    assert.match(select.worstRepeatToken ?? '', /^[0-9a-f]+$/);
  });

  it('counts upstream calls by method and host, a 503 as an error', async () => {
    const summary = await overviewOf(instances[1]!);
    assert.deepEqual(
      summary.upstreams.map(({ upstream, calls, errors }) => ({ upstream, calls, errors })),
      [{ upstream: `GET ${upstreamHost}`, calls: 2, errors: 2 }],
    );
  });

  it('groups the three TypeErrors that differ by an id into one exception', async () => {
    const summary = await overviewOf(instances[0]!);
    assert.deepEqual(
      summary.exceptions.map(({ className, count }) => ({ className, count })),
      [{ className: 'TypeError', count: 3 }],
    );
    assert.match(summary.exceptions[0]!.message, /^user \{n\} has no cart$/);
  });

  it('reads the same overview from the store with vigil profiler:overview', async () => {
    const run = await runVigil(['profiler:overview', '--json'], { PROFILER_DSN: dsn });
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as Summary;
    assert.equal(summary.requests, 13);
    const text = await runVigil(['profiler:overview'], { PROFILER_DSN: dsn });
    assert.match(text.stdout, /GET \/users\/:id {2}8 requests, 0 4xx, 0 5xx/);
  });

  it('draws the overview page in Chromium', async (t) => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${instances[0]!.url}/_profiler/overview`);
      assert.match((await page.textContent('#routes')) ?? '', /GET \/users\/:id/);
      assert.match((await page.textContent('#exceptions')) ?? '', /TypeError/);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: screenshotPath(`profiler-overview-${scheme}.png`), fullPage: true });
      }
      t.diagnostic(`screenshots: ${screenshotPath('profiler-overview-light.png')}`);
    } finally {
      await browser.close();
    }
  });
});
