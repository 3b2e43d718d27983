/**
 * Issue 43, item 8: an application's own tests read a request's report, as Symfony's
 * `$client->getProfile()` does: `app.vigil.report(response)` takes an `inject()` or a `fetch`
 * response, or a token, and gives its sections typed, so a test can keep an N+1 from coming
 * back. A test run's reports go to a store of its own, not the development server's.
 * Written as a team would write it (docs/testing.md): `loadConfig()` from the environment.
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';

/** A database driver as mysql2 3.20 publishes its queries: the query, then the rows. */
const query = diagnosticsChannel.tracingChannel('mysql2:query');
const select = (sql: string) => query.tracePromise(async () => [[{ id: 1 }]], { query: sql, values: [] });

async function build(env: Record<string, string | undefined>): Promise<FastifyInstance> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', TLS: '0', ...env });
  const app = Fastify(vigilFastifyOptions(config));
  await app.register(vigil, { config });
  // One statement for the list, then one per user: the N+1 a test should catch.
  app.get('/users', async () => {
    const users = [1, 2, 3];
    await select('SELECT id FROM users');
    for (const id of users) await select(`SELECT name FROM profiles WHERE user_id = ${id}`);
    return users;
  });
  app.get('/users/batched', async () => {
    await select('SELECT id FROM users');
    await select('SELECT name FROM profiles WHERE user_id IN (1, 2, 3)');
    return [1, 2, 3];
  });
  return app;
}

let app: FastifyInstance;
before(async () => {
  app = await build({ APP_ENV: 'dev', VAR_DIR: undefined, PROFILER_DSN: undefined });
});
after(() => app.close());

describe("app.vigil.report gives a test its request's report", () => {
  it('reads an inject() response, each built-in section typed', async () => {
    const response = await app.inject({ url: '/users/batched' });
    const report = await app.vigil.report(response);
    assert.ok(report, 'a report is stored for the request');
    assert.equal(report.status, 200);
    assert.equal(report.routing?.matched?.path, '/users/batched');
    assert.ok((report.database?.statements.length ?? 0) <= 2, 'the batched route runs at most 2 statements');
  });

  it('catches an N+1: the route runs a statement per user', async () => {
    const report = await app.vigil.report(await app.inject({ url: '/users' }));
    assert.equal(report?.database?.statements.length, 4);
  });

  it('reads a fetch response over a socket, or a token', async () => {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const response = await fetch(`${url}/users/batched`);
    const byResponse = await app.vigil.report(response);
    const token = response.headers.get('x-debug-token')!;
    const byToken = await app.vigil.report(token);
    assert.equal(byResponse?.token, token);
    assert.equal(byToken?.token, token);
  });

  it("keeps a test run's reports in a store of its own, in the temporary directory", () => {
    assert.ok(
      app.vigil.profiler!.store.location.startsWith(tmpdir()),
      `reports are stored in ${app.vigil.profiler!.store.location}`,
    );
    assert.match(app.vigil.profiler!.store.location, /vigil-test-run-\d+/);
  });

  it('gives no report in production', async () => {
    const production = await build({ APP_ENV: 'prod' });
    try {
      assert.equal(await production.vigil.report(await production.inject({ url: '/users' })), undefined);
    } finally {
      await production.close();
    }
  });
});
