/**
 * CONTRACT section 7, memory, for handlers that run in the service's own process: the heap
 * guard. The service runs with a 128 MB V8 heap; near its limit the running in-process
 * handlers are stopped (500, signal fired) and new requests refused (503) until the heap
 * is back down, so the process lives on.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { ask, startService, serviceForTests } from '../support/service.js';
import { debugMessage } from '../support/answers.js';

const service = serviceForTests(() =>
  startService({
    ROUTES: 'test/fixtures/limit-routes.ts',
    NODE_OPTIONS: '--max-old-space-size=128',
    ISOLATED_WORKERS: '1',
  }),
);

/** `ask`, failing with what the service wrote when the connection breaks (a process that died near its limit says why). */
async function askService(path: string) {
  try {
    return await ask(service(), { path });
  } catch (error) {
    assert.fail(`${path}: ${(error as Error).message}; the service wrote:\n${service().output()}`);
  }
}

describe('the heap guard keeps the process alive near its heap limit', () => {
  it('stops a growing in-process handler with a 500, refuses new routed requests with 503 but not unrouted ones, then recovers', async () => {
    const grown = await askService('/grow?hold=1000');
    assert.equal(grown.status, 500);
    // The limit named is the process's own: its old generation, 128 MB.
    assert.equal(debugMessage(grown), `Allowed memory size of ${128 * 1024 * 1024} bytes exhausted`);

    // The handler still holds its memory for 1 s: the service refuses work meanwhile.
    const refused = await askService('/hello');
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['retry-after'], '1');
    assert.match(
      debugMessage(refused),
      /^The service is short of memory \(heap [\d.]+ [KMG]iB of [\d.]+ [KMG]iB in use\); try again shortly$/,
    );
    // Unrouted requests cost no memory: they are answered while the guard refuses routed ones.
    assert.equal((await askService('/robots.txt')).status, 404);

    let answer = refused;
    for (let i = 0; i < 100 && answer.status !== 200; i++) {
      await sleep(100);
      answer = await askService('/hello');
    }
    assert.equal(answer.status, 200, 'the service accepts requests again once the memory is released');
  });
});
