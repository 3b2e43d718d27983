/**
 * Issue 45, item 1 on PostgreSQL, over real sockets: a production 500 kept by PROFILER_KEEP
 * lands in the shared store with its exception, logs and statement, under the token its
 * log line names; a fast 200 leaves none.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Report } from '../../src/profiler/model/report.js';
import { startInProcess } from '../support/in-process-service.js';
import { startPostgres, type PostgresServer } from '../support/postgres.js';
import { ask, type Answer } from '../support/service.js';
import { openStoreOf } from '../support/stores.js';

let postgres: PostgresServer;
before(async () => {
  postgres = await startPostgres();
});
after(() => postgres?.close());

describe('production keeps the report of a 500 in PostgreSQL, not that of a fast 200', () => {
  it('stores the 500 with its exception, logs and statement, under the token its log line names', async () => {
    const dsn = await postgres.database('kept');
    const service = await startInProcess({
      APP_ENV: 'prod',
      ROUTES: 'test/fixtures/kept-routes.ts',
      PROFILER_DSN: dsn,
      PROFILER_KEEP: 'errors',
    });
    let failed: Answer;
    try {
      failed = await ask(service, { path: '/orders/fail' });
      assert.equal((await ask(service, { path: '/fast' })).body, 'fast');
    } finally {
      await service.stop();
    }
    assert.equal(failed.status, 500);
    assert.deepEqual(
      Object.keys(failed.headers).filter((name) => name.startsWith('x-debug')),
      [],
    );
    const line = service
      .output()
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as { msg?: string; report?: string })
      .find((entry) => entry.msg === 'order 7 has no total');
    assert.ok(line?.report, service.output());
    const store = await openStoreOf(service.varDir, { PROFILER_DSN: dsn });
    let report: Report | undefined;
    let stored: number;
    try {
      report = await store.read(line.report);
      stored = await store.count();
    } finally {
      await store.close();
    }
    assert.equal(stored, 1);
    const sections = report?.collectors as Record<string, any>;
    assert.equal(sections.exception.message, 'order 7 has no total');
    assert.equal(sections.exception.cause.class, 'RangeError');
    assert.ok(sections.logs.lines.some((logged: { message: string }) => logged.message === 'looking order 7 up'));
    assert.equal(sections.database.statements.length, 1);
  });
});
