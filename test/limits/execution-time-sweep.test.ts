/**
 * MAX_EXECUTION_TIME is kept by one sweep over the handlers running in the process, not by
 * a timer per request: many handlers waiting at once add no timer each, and each is still
 * stopped with its 500 once its time is up (within the sweep's step, a twentieth of the
 * limit and at most a second, past the deadline).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, serviceForTests } from '../support/service.js';

const service = serviceForTests(() =>
  startInProcess({
    APP_ENV: 'prod',
    ROUTES: 'test/fixtures/limit-routes.ts',
    MAX_EXECUTION_TIME: '2',
    ISOLATED_WORKERS: '1',
  }),
);

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('the execution time of in-process handlers', () => {
  it('adds no timer per running handler, and stops each at its deadline', async () => {
    await ask(service(), { path: '/signals' });
    const idle = timers();
    const started = performance.now();
    const waiting = Array.from({ length: 20 }, (_, i) => ask(service(), { path: `/wait-for-signal?tag=sweep${i}` }));
    // The handlers wait on their signals, which only the deadline fires.
    await sleep(800);
    const running = timers();
    const answers = await Promise.all(waiting);
    const ms = performance.now() - started;
    assert.ok(running - idle <= 2, `${running - idle} timers more with 20 handlers running`);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(20).fill(500),
    );
    assert.ok(ms >= 1950, `answered after ${ms.toFixed(0)} ms`);
  });
});
