import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('gives a burst of perSecond, then refills at perSecond a second', () => {
    let now = 0;
    const bucket = new TokenBucket(10, () => now);
    const burst = Array.from({ length: 300 }, () => bucket.take()).filter(Boolean).length;
    assert.equal(burst, 10);
    now += 500;
    assert.equal(Array.from({ length: 300 }, () => bucket.take()).filter(Boolean).length, 5);
    now += 60_000;
    assert.equal(Array.from({ length: 300 }, () => bucket.take()).filter(Boolean).length, 10);
  });

  it('keeps at most perSecond per second over a long run', () => {
    let now = 0;
    const bucket = new TokenBucket(3, () => now);
    let taken = 0;
    for (let ms = 0; ms < 10_000; ms += 7) {
      now = ms;
      if (bucket.take()) taken++;
    }
    assert.ok(taken <= 3 * 11, `${taken} taken in 10 s`);
  });
});
