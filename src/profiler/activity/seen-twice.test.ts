import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatementRecord } from './request-activity.js';
import { spansNotSeenByChannels } from './seen-twice.js';

const seen = (text: string, start: number, duration: number | null, system = 'mysql'): StatementRecord => ({
  text,
  system,
  start,
  duration,
  rows: null,
  site: null,
  error: false,
});

describe('a statement seen by a span and by a channel is kept once', () => {
  it('takes away the span of a channel statement of the same text running at the same time', () => {
    const span = seen('SELECT ?', 1, 4);
    assert.deepEqual(spansNotSeenByChannels([span], [seen('SELECT ?', 1.5, 3)]), []);
  });

  it('keeps spans of another text, another database, or another time', () => {
    const spans = [seen('SELECT ?', 1, 4), seen('SELECT ?', 10, 1, 'postgresql'), seen('SELECT ?', 20, 1)];
    assert.deepEqual(spansNotSeenByChannels(spans, [seen('SELECT 1', 1.5, 1), seen('SELECT ?', 10.2, 0.5)]), spans);
  });

  it('pairs one span with one channel statement, in a loop and when run side by side', () => {
    // A loop: each span ends where the next statement starts.
    const loop = [0, 1, 2, 3].map((at) => seen('SELECT ?', at * 2, 2));
    const loopChannels = [0, 1, 2, 3].map((at) => seen('SELECT ?', at * 2 + 0.5, 1.5));
    assert.deepEqual(spansNotSeenByChannels(loop, loopChannels), []);
    // Side by side, with one more span than channel statements: one span stays.
    const together = [seen('SELECT ?', 0, 5), seen('SELECT ?', 0.1, 5), seen('SELECT ?', 0.2, 5)];
    assert.equal(spansNotSeenByChannels(together, [seen('SELECT ?', 0.3, 1), seen('SELECT ?', 0.4, 1)]).length, 1);
  });

  it("pairs a Redis command by its name: OpenTelemetry's span writes out its arguments", () => {
    const span = seen('get session:1', 0, null, 'redis');
    assert.deepEqual(spansNotSeenByChannels([span], [seen('GET ?', 0.2, 1, 'redis')]), []);
    assert.deepEqual(spansNotSeenByChannels([span], [seen('SET ? ?', 0.2, 1, 'redis')]), [span]);
  });

  it('takes a running span (no duration yet) as overlapping what starts after it', () => {
    assert.deepEqual(spansNotSeenByChannels([seen('SELECT ?', 0, null)], [seen('SELECT ?', 100, null)]), []);
    assert.equal(spansNotSeenByChannels([seen('SELECT ?', 100, null)], [seen('SELECT ?', 0, 1)]).length, 1);
  });
});
