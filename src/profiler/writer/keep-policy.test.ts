import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeepPolicy, type KeepSettings } from './keep-policy.js';

const settings = (overrides: Partial<KeepSettings>): KeepSettings => ({
  outcomes: [],
  sample: 0,
  slowMs: 1000,
  maxPerSecond: 1000,
  ...overrides,
});
const ok = { failed: false, durationMs: 5 };
const failed = { failed: true, durationMs: 5 };
const slow = { failed: false, durationMs: 1001 };

describe('KeepPolicy keeps by outcome, then by sample, within the bound', () => {
  it('keeps errors, slow requests or all, as PROFILER_KEEP lists them', () => {
    const errors = new KeepPolicy(settings({ outcomes: ['errors'] }), () => undefined);
    assert.deepEqual([errors.keeps(ok), errors.keeps(failed), errors.keeps(slow)], [false, true, false]);
    assert.equal(errors.keepsErrors, true);
    const slowOnly = new KeepPolicy(settings({ outcomes: ['slow'] }), () => undefined);
    assert.deepEqual([slowOnly.keeps(ok), slowOnly.keeps(failed), slowOnly.keeps(slow)], [false, false, true]);
    assert.equal(slowOnly.keepsErrors, false);
    const all = new KeepPolicy(settings({ outcomes: ['all'] }), () => undefined);
    assert.deepEqual([all.keeps(ok), all.keeps(failed), all.keeps(slow)], [true, true, true]);
  });

  it('keeps the share PROFILER_SAMPLE draws of the rest', () => {
    const draws = [0.2, 0.7];
    const sampled = new KeepPolicy(
      settings({ sample: 0.5 }),
      () => undefined,
      () => draws.shift()!,
    );
    assert.deepEqual([sampled.keeps(ok), sampled.keeps(ok)], [true, false]);
    const none = new KeepPolicy(
      settings({}),
      () => undefined,
      () => assert.fail('no draw without a sample'),
    );
    assert.equal(none.keeps(failed), false);
  });

  it('counts what is over the bound, and says it once', () => {
    const said: string[] = [];
    const bounded = new KeepPolicy(settings({ outcomes: ['errors'], maxPerSecond: 3 }), (line) => said.push(line));
    const kept = Array.from({ length: 50 }, () => bounded.keeps(failed)).filter(Boolean).length;
    assert.equal(kept, 3);
    assert.equal(bounded.overBound, 47);
    bounded.flush();
    assert.deepEqual(said, [
      'vigil: 1 report not kept: over PROFILER_KEEP_MAX_PER_SECOND (3)',
      'vigil: 46 reports not kept: over PROFILER_KEEP_MAX_PER_SECOND (3)',
    ]);
  });
});
