import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DelayMonitor } from './performance.js';

function block(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('DelayMonitor', () => {
  it('ends a window when a report asks past its length, and shows the last one ended until then', async () => {
    const monitor = new DelayMonitor(300);
    try {
      assert.equal(monitor.latest(), null, 'no window has ended yet');
      await sleep(30);
      block(60);
      await sleep(90);
      const first = monitor.latest();
      assert.ok(first, 'the first window (100 ms) has ended');
      assert.ok(first.windowMs >= 100, String(first.windowMs));
      assert.ok(first.max >= 40, `a 60 ms block shows: ${first.max}`);
      await sleep(30);
      assert.equal(monitor.latest(), first, 'the next window has not ended');
      await sleep(300);
      const second = monitor.latest();
      assert.notEqual(second, first);
      assert.ok(second === null || second.max < 40, `a quiet window: ${second?.max}`);
      assert.ok(second === null || second.windowMs >= 300);
    } finally {
      monitor.close();
    }
  });
});
