import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addHistogram,
  bucketBound,
  bucketOf,
  countDuration,
  type LatencyHistogram,
  quantile,
} from './latency-histogram.js';

describe('latency histogram', () => {
  it('puts a duration in a bucket whose bound is within 10 % above it', () => {
    for (const ms of [0.02, 0.5, 1, 3.3, 42, 999, 12_345]) {
      const bound = bucketBound(bucketOf(ms));
      assert.ok(bound >= ms && bound <= ms * 1.1 + 1e-9, `${ms} -> ${bound}`);
    }
  });

  it('keeps zero, negative, NaN and huge durations in range', () => {
    assert.equal(bucketOf(0), 0);
    assert.equal(bucketOf(-5), 0);
    assert.equal(bucketOf(Number.NaN), 0);
    assert.equal(bucketOf(Number.POSITIVE_INFINITY), bucketOf(1e12));
  });

  it('gives p50, p95 and p99 of 100 durations 1..100 ms within a bucket', () => {
    const histogram: LatencyHistogram = {};
    for (let ms = 1; ms <= 100; ms++) countDuration(histogram, ms);
    for (const [q, expected] of [
      [0.5, 50],
      [0.95, 95],
      [0.99, 99],
    ] as const) {
      const read = quantile(histogram, q)!;
      assert.ok(read >= expected && read <= expected * 1.1, `p${q * 100}: ${read}`);
    }
  });

  it('adds histograms by bucket: two halves give the quantiles of the whole', () => {
    const whole: LatencyHistogram = {};
    const [odd, even]: LatencyHistogram[] = [{}, {}];
    for (let ms = 1; ms <= 200; ms++) {
      countDuration(whole, ms);
      countDuration(ms % 2 ? odd! : even!, ms);
    }
    const merged: LatencyHistogram = {};
    addHistogram(merged, odd!);
    addHistogram(merged, even!);
    assert.deepEqual(merged, whole);
    assert.equal(quantile(merged, 0.95), quantile(whole, 0.95));
  });

  it('reads null with nothing counted, and ignores buckets that are not its own when adding', () => {
    assert.equal(quantile({}, 0.5), null);
    const merged: LatencyHistogram = {};
    addHistogram(merged, { 3: 2, [-1]: 5, 9999: 1, 4: Number.NaN, 5: 1.5 } as LatencyHistogram);
    assert.deepEqual(merged, { 3: 2 });
  });
});
