import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DelayMonitor } from './performance.js';

function block(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('DelayMonitor', () => {
  // Windows end by a clock the test moves, so a loaded machine cannot end one early or late;
  // only the delay itself is real, and load can only make it larger.
  it('ends a window when a report asks past its length, and starts the next one empty', async () => {
    let clock = 0;
    const monitor = new DelayMonitor(300, () => clock);
    try {
      await sleep(20);
      block(60);
      await sleep(30);
      clock = 99;
      assert.equal(monitor.latest(), null, 'the first window (100 ms) has not ended');
      clock = 100;
      const first = monitor.latest();
      assert.ok(first, 'the first window has ended');
      assert.equal(first.windowMs, 100);
      assert.ok(first.max >= 40, `a 60 ms block shows: ${first.max}`);
      clock = 399;
      assert.equal(monitor.latest(), first, 'the next window (300 ms) has not ended');
      clock = 1000;
      // No sample is taken between two synchronous calls: a reset histogram has none.
      assert.equal(monitor.latest(), null, 'the window after holds nothing of the first');
    } finally {
      monitor.close();
    }
  });

  it('says how long a window that spanned a quiet spell was', async () => {
    let clock = 0;
    const monitor = new DelayMonitor(300, () => clock);
    try {
      await sleep(50);
      clock = 2500;
      assert.equal(monitor.latest()?.windowMs, 2500);
    } finally {
      monitor.close();
    }
  });
});
