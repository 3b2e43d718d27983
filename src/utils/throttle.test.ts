/** A line that may be written at most once per interval: the first at once, the ones in between as one when it ends. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { Throttle } from './throttle.js';

/** A throttle on a one-second interval, and the times its write ran. */
function recorded(): { runs: number[]; throttle: Throttle } {
  const runs: number[] = [];
  return { runs, throttle: new Throttle(() => runs.push(Date.now()), 1000) };
}

describe('a throttled write runs at most once per interval', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 }));
  afterEach(() => mock.timers.reset());

  it('runs the first call at once, and the calls within the interval once when it ends', () => {
    const { runs, throttle } = recorded();
    throttle.call();
    mock.timers.tick(100);
    throttle.call();
    throttle.call();
    mock.timers.tick(899);
    assert.deepEqual(runs, [10_000]);
    mock.timers.tick(1);
    assert.deepEqual(runs, [10_000, 11_000]);
  });

  it('runs at once again once an interval has passed without a call', () => {
    const { runs, throttle } = recorded();
    throttle.call();
    mock.timers.tick(5000);
    throttle.call();
    assert.deepEqual(runs, [10_000, 15_000]);
  });

  it('runs a waiting call at once on flush, and nothing when none waits', () => {
    const { runs, throttle } = recorded();
    throttle.flush();
    throttle.call();
    throttle.call();
    throttle.flush();
    mock.timers.tick(5000);
    assert.deepEqual(runs, [10_000, 10_000]);
  });
});
