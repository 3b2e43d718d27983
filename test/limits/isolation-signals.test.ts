/**
 * Issue 27, item 4: a signal sent to the whole process group (a terminal's Ctrl-C,
 * systemd's KillMode=control-group) reaches the isolated workers too. They leave the stop
 * to the service, which lets their requests finish within SHUTDOWN_TIMEOUT and then stops them.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { ask, startService, workerPids, type Service } from '../support/service.js';

const running: Service[] = [];
after(() => Promise.all(running.map((service) => service.stop())));

describe('a signal to the process group lets isolated requests in flight finish', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`answers isolated requests running at a group ${signal}, then exits 0 with no worker left`, {
      timeout: 30_000,
    }, async () => {
      const target = await startService(
        { ROUTES: 'test/fixtures/limit-routes.ts', ISOLATED_WORKERS: '2', SHUTDOWN_TIMEOUT: '20s' },
        { processGroup: true },
      );
      running.push(target);
      const workers = workerPids(target.pid);
      assert.equal(workers.length, 2);
      const spins = [ask(target, { path: '/spin?ms=1500' }), ask(target, { path: '/spin?ms=1500' })];
      await sleep(400);
      target.signalGroup(signal);
      const answers = await Promise.all(spins);
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200],
        answers.map((answer) => /<title>([^<]*)/.exec(answer.body)?.[1] ?? answer.body.slice(0, 200)).join('; '),
      );
      assert.deepEqual(await target.exited, { code: 0, signal: null });
      for (const pid of workers)
        assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `isolated worker ${pid} outlived the service`);
    });
  }
});
