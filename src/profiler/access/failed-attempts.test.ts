import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailedAttempts } from './failed-attempts.js';

function attempts(maxAddresses = 100) {
  let now = 0;
  const limiter = new FailedAttempts({ maxFailures: 3, windowMs: 1000, maxAddresses }, () => now);
  return { limiter, advance: (ms: number) => (now += ms) };
}

describe('failed attempts are bounded per address, within a window', () => {
  it('refuses an address from its bound on, until the window ends', () => {
    const { limiter, advance } = attempts();
    assert.deepEqual([limiter.fail('a'), limiter.fail('a')], [false, false]);
    assert.ok(!limiter.blocks('a'));
    assert.equal(limiter.fail('a'), true);
    assert.ok(limiter.blocks('a'));
    assert.equal(limiter.refusedUntil('a'), 1000);
    assert.ok(!limiter.blocks('b'));
    advance(1000);
    assert.ok(!limiter.blocks('a'));
    assert.equal(limiter.refusedUntil('a'), undefined);
  });

  it('remembers a bounded number of addresses, forgetting the least recently failing first', () => {
    const { limiter } = attempts(2);
    for (let i = 0; i < 3; i++) limiter.fail('a');
    limiter.fail('b');
    limiter.fail('a');
    for (let i = 0; i < 10_000; i++) limiter.fail(`c${i % 1}`);
    assert.equal(limiter.size, 2);
    assert.ok(limiter.blocks('a'));
    assert.ok(!limiter.blocks('b'));
  });
});
