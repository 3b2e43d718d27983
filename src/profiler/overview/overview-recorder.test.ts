import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OverviewSample } from './minute-counts.js';
import { MINUTE_MS, OverviewRecorder } from './overview-recorder.js';
import { summarize } from './overview-summary.js';

function sample(time: number, overrides: Partial<OverviewSample> = {}): OverviewSample {
  return {
    time,
    method: 'GET',
    route: '/a',
    status: 200,
    durationMs: 1,
    token: null,
    statements: [],
    calls: [],
    exception: null,
    ...overrides,
  };
}

describe('overview recorder', () => {
  it('hands what it counted to the store, the minute under way included, and counts on afresh', () => {
    const recorder = new OverviewRecorder();
    recorder.record(sample(0));
    recorder.record(sample(10));
    recorder.record(sample(MINUTE_MS + 5));
    assert.deepEqual(
      recorder.unwritten().map((minute) => minute.minute),
      [0, 1],
    );
    const first = recorder.take();
    assert.deepEqual(
      first.map((minute) => [minute.minute, minute.counts.routes['GET /a']!.requests]),
      [
        [0, 2],
        [1, 1],
      ],
    );
    assert.deepEqual(recorder.unwritten(), []);
    recorder.record(sample(MINUTE_MS + 9));
    assert.deepEqual(
      recorder.take().map((minute) => [minute.minute, minute.counts.routes['GET /a']!.requests]),
      [[1, 1]],
    );
    assert.deepEqual(recorder.take(), []);
  });

  it('holds an hour of minutes for a store that is away, dropping and counting older ones', () => {
    const recorder = new OverviewRecorder();
    for (let minute = 0; minute < 90; minute++) {
      recorder.record(sample(minute * MINUTE_MS));
      recorder.giveBack(recorder.take());
    }
    const held = recorder.take();
    assert.equal(held.length, 60);
    assert.equal(held[0]!.minute, 30);
    assert.equal(recorder.droppedMinutes, 30);
  });
});

describe('overview summary', () => {
  it('adds the minutes of a window and gives each route its quantiles, the busiest first', () => {
    const recorder = new OverviewRecorder();
    for (let i = 1; i <= 100; i++) recorder.record(sample(i * 1000, { durationMs: i, status: i > 98 ? 500 : 200 }));
    for (let i = 0; i < 3; i++) recorder.record(sample(70_000, { route: '/b' }));
    const minutes = recorder.take().map((minute) => minute.counts);
    const summary = summarize('1h', minutes);
    assert.equal(summary.requests, 103);
    assert.deepEqual(
      summary.routes.map((row) => [row.route, row.requests, row.serverErrors]),
      [
        ['GET /a', 100, 2],
        ['GET /b', 3, 0],
      ],
    );
    const [a] = summary.routes;
    assert.ok(a!.p50! >= 50 && a!.p50! <= 55, `p50 ${a!.p50}`);
    assert.ok(a!.p99! >= 99 && a!.p99! <= 109, `p99 ${a!.p99}`);
  });
});
