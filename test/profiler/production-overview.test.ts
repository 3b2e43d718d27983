/**
 * Issue 45, items 1 and 4 together: in production, with PROFILER_KEEP=errors and the pages
 * opened by PROFILER_SECRET, the overview counts every request, kept as a report or not: the
 * fast 200s that leave no report are counted with the 500 that does, and only the kept one
 * is linked. The answers carry no debug header.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';

const SECRET = 'an overview secret of thirty-two characters or more';

interface Summary {
  requests: number;
  routes: Array<{
    route: string;
    requests: number;
    clientErrors: number;
    serverErrors: number;
    slowest: { token: string } | null;
  }>;
  exceptions: Array<{ className: string; count: number; newestToken: string | null }>;
}

let app: FastifyInstance;
let url: string;

before(async () => {
  const config = loadConfig({
    TLS: '0',
    LOG_LEVEL: 'silent',
    APP_ENV: 'prod',
    PROFILER_KEEP: 'errors',
    PROFILER_SECRET: SECRET,
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-prod-overview-')),
  });
  app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get('/hello', async () => ({ hello: 'world' }));
  app.get<{ Params: { id: string } }>('/orders/:id', async (request) => {
    throw new TypeError(`order ${request.params.id} has no lines`);
  });
  // A route that takes a request and hands it on as not found (no such product).
  app.get('/products/:id', async (_request, reply) => reply.callNotFound());
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});

after(() => app?.close());

describe('the overview in production counts every request, kept or not', () => {
  it('counts five fast 200s that leave no report beside the 500 that does', async () => {
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`${url}/hello`);
      await answer.text();
      assert.equal(answer.headers.get('x-debug-token'), null, 'no debug header in production');
    }
    const failed = await fetch(`${url}/orders/7`);
    await failed.text();
    assert.equal(failed.status, 500);
    await app.vigil.profiler!.overview.flush();
    const answer = await fetch(`${url}/_profiler/overview`, {
      headers: { accept: 'application/json', authorization: `Bearer ${SECRET}` },
    });
    assert.equal(answer.status, 200);
    const summary = (await answer.json()) as Summary;
    const byRoute = new Map(summary.routes.map((row) => [row.route, row]));
    assert.equal(byRoute.get('GET /hello')?.requests, 5);
    assert.equal(byRoute.get('GET /hello')?.slowest, null, 'no report kept of a fast 200');
    assert.equal(byRoute.get('GET /orders/:id')?.serverErrors, 1);
    assert.match(byRoute.get('GET /orders/:id')?.slowest?.token ?? '', /^[0-9a-f]+$/, 'the kept 500 is linked');
    assert.deepEqual(
      summary.exceptions.map(({ className, count }) => ({ className, count })),
      [{ className: 'TypeError', count: 1 }],
    );
  });

  it('counts the errors past the bound, not kept, in the same group as the kept ones', async () => {
    // PROFILER_KEEP_MAX_PER_SECOND is 10: of twelve failures at once, some are not kept.
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => fetch(`${url}/orders/${100 + i}`)));
    for (const answer of answers) await answer.text();
    await app.vigil.profiler!.overview.flush();
    const answer = await fetch(`${url}/_profiler/overview`, {
      headers: { accept: 'application/json', authorization: `Bearer ${SECRET}` },
    });
    const summary = (await answer.json()) as Summary;
    const { reports } = await app.vigil.profiler!.store.search({ limit: 100 });
    assert.ok(reports.length < 13, `${reports.length} reports kept`);
    assert.deepEqual(
      summary.exceptions.map(({ className, count }) => ({ className, count })),
      [{ className: 'TypeError', count: 13 }],
    );
  });

  it("counts a 404 a route's handler raised under that route, and an unmatched one under no route", async () => {
    for (const path of ['/products/9', '/nowhere']) {
      const answer = await fetch(`${url}${path}`);
      await answer.text();
      assert.equal(answer.status, 404);
    }
    await app.vigil.profiler!.overview.flush();
    const answer = await fetch(`${url}/_profiler/overview`, {
      headers: { accept: 'application/json', authorization: `Bearer ${SECRET}` },
    });
    const byRoute = new Map(((await answer.json()) as Summary).routes.map((row) => [row.route, row]));
    assert.deepEqual(
      [byRoute.get('GET /products/:id')?.clientErrors, byRoute.get('GET (no route)')?.clientErrors],
      [1, 1],
    );
  });

  it('answers the ordinary 404 to whoever has no secret', async () => {
    const answer = await fetch(`${url}/_profiler/overview`, { headers: { accept: 'application/json' } });
    assert.equal(answer.status, 404);
  });
});
