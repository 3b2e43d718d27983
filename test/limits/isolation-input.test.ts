/**
 * An input the worker pool cannot copy to its worker (nested too deep for V8's serializer)
 * fails the job with a clear error the pipeline can render, and the worker goes on.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../../src/errors/http-errors.js';
import { WorkerPool } from '../../src/limits/isolation/worker-pool.js';
import type { IsolatedInput } from '../../src/limits/isolation/protocol.js';
import { importable } from '../support/kernel-build.js';
import { ROOT } from '../support/service.js';

const quiet = () => undefined;
const log = {
  level: 'silent',
  fatal: quiet,
  error: quiet,
  warn: quiet,
  info: quiet,
  debug: quiet,
  trace: quiet,
  silent: quiet,
  child: () => log,
} as unknown as FastifyBaseLogger;
const input = (query: Record<string, string>, body: unknown): IsolatedInput => ({
  params: {},
  query,
  body,
  files: [],
  method: 'GET',
  url: '/isolated-echo/1',
  headers: {},
});

let pool: WorkerPool;
before(async () => {
  pool = new WorkerPool({
    routesModule: importable(resolve(ROOT, 'test/fixtures/limit-routes.ts')),
    routes: ['GET /isolated-echo/{id}'],
    size: 1,
    memoryLimit: Infinity,
    log,
  });
  await pool.start();
});
after(() => pool.close());

describe('an input that cannot be copied to the worker', () => {
  it('fails the job with a 500 that says the request could not be copied, not a stack overflow', async () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const { result } = pool.run('GET /isolated-echo/{id}', input({}, deep), { timeLimitSeconds: 0, log });
    await assert.rejects(result, (error: unknown) => {
      assert.ok(error instanceof HttpError, String(error));
      assert.equal(error.status, 500);
      assert.equal(error.code, 'VIGIL_ERR_ISOLATION_INPUT');
      assert.match(error.message, /^The request could not be copied to its isolated worker: /);
      return true;
    });
  });

  it('keeps the worker: the next job runs', async () => {
    const { result } = pool.run('GET /isolated-echo/{id}', input({ a: '1' }, undefined), { timeLimitSeconds: 5, log });
    assert.deepEqual(((await result) as { query: unknown }).query, { a: '1' });
  });
});
