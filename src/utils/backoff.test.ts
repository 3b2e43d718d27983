/** A failing operation waits longer before each retry, up to a cap, and starts again after a success. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Backoff } from './backoff.js';

describe('a failing operation is retried with an exponential backoff, capped', () => {
  it('doubles the wait after each failure up to the cap, and starts again after a success', () => {
    const backoff = new Backoff(1000, 8000);
    assert.equal(backoff.ready(0), true);
    assert.equal(backoff.failed(0), 1000);
    assert.equal(backoff.ready(999), false);
    assert.equal(backoff.ready(1000), true);
    assert.deepEqual(
      [
        backoff.failed(1000),
        backoff.failed(3000),
        backoff.failed(7000),
        backoff.failed(15_000),
        backoff.failed(23_000),
      ],
      [2000, 4000, 8000, 8000, 8000],
    );
    assert.equal(backoff.ready(30_000), false);
    backoff.succeeded();
    assert.equal(backoff.ready(0), true);
    assert.equal(backoff.failed(31_000), 1000);
  });
});
