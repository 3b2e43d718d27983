import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RestartPacing } from './restart-pacing.js';

describe('a dead worker is replaced after a wait that doubles while workers keep dying', () => {
  it('waits 100 ms, then twice as long each time, up to 10 s', () => {
    const pacing = new RestartPacing();
    const waits = Array.from({ length: 10 }, () => pacing.exited(undefined));
    assert.deepEqual(waits, [100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000]);
  });

  it('goes on doubling for workers that served only briefly', () => {
    const pacing = new RestartPacing({ stableMs: 30_000 });
    assert.deepEqual([pacing.exited(5), pacing.exited(29_999), pacing.exited(undefined)], [100, 200, 400]);
  });

  it('starts again from 100 ms once a worker that served a while dies', () => {
    const pacing = new RestartPacing({ stableMs: 30_000 });
    for (let i = 0; i < 5; i++) pacing.exited(undefined);
    assert.deepEqual([pacing.exited(30_000), pacing.exited(undefined)], [100, 200]);
  });
});
