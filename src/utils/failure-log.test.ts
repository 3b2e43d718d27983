/** Repeated failures are logged as throttled lines with counts, on an injected clock. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ThrottledFailures, type FailureLine } from './failure-log.js';

const WRITE = 'report store write failed';
const messages = (lines: FailureLine[]) => lines.map((line) => line.message);
const FULL = 'SQLITE_FULL: database or disk is full';

describe('a failure that repeats is written at most once per interval per kind, with its count', () => {
  it('writes the first failure at once and the ones after it as one count when the interval ends', () => {
    const failures = new ThrottledFailures(1000);
    assert.equal(failures.record(WRITE, FULL, 0)?.message, `${WRITE}: ${FULL}`);
    for (let now = 10; now <= 370; now += 10) assert.equal(failures.record(WRITE, FULL, now)?.message, undefined);
    assert.equal(failures.nextDue(), 1000);
    assert.deepEqual(messages(failures.due(999)), []);
    assert.deepEqual(failures.due(1000), [{ message: `${WRITE} 37 times in the last 1.0 s: ${FULL}`, failures: 37 }]);
    assert.deepEqual(messages(failures.due(5000)), [], 'counted failures are written once');
    assert.equal(failures.nextDue(), undefined);
  });

  it('keeps kinds apart: each has its own interval and count', () => {
    const failures = new ThrottledFailures(1000);
    assert.equal(failures.record(WRITE, FULL, 0)?.message, `${WRITE}: ${FULL}`);
    assert.equal(failures.record('retention run failed', FULL, 100)?.message, `retention run failed: ${FULL}`);
    assert.equal(failures.record(WRITE, FULL, 200)?.message, undefined);
    assert.equal(failures.record('retention run failed', FULL, 300)?.message, undefined);
    assert.deepEqual(messages(failures.due(1000)), [`${WRITE} 1 time in the last 1.0 s: ${FULL}`]);
    assert.deepEqual(messages(failures.due(1100)), [`retention run failed 1 time in the last 1.0 s: ${FULL}`]);
  });

  it('writes a failure at once when its interval is over, with the failures counted since the last line', () => {
    const failures = new ThrottledFailures(1000);
    failures.record(WRITE, FULL, 0);
    assert.equal(failures.record(WRITE, 'SQLITE_IOERR: disk I/O error', 400)?.message, undefined);
    assert.equal(failures.record(WRITE, FULL, 2500)?.message, `${WRITE} 2 times in the last 2.5 s: ${FULL}`);
    assert.equal(
      failures.record(WRITE, FULL, 9000)?.message,
      `${WRITE}: ${FULL}`,
      'after a quiet interval the count starts again',
    );
  });

  it('names the latest detail of the interval', () => {
    const failures = new ThrottledFailures(1000);
    failures.record(WRITE, FULL, 0);
    failures.record(WRITE, FULL, 100);
    failures.record(WRITE, 'SQLITE_IOERR: disk I/O error', 200);
    assert.deepEqual(messages(failures.due(1000)), [
      `${WRITE} 2 times in the last 1.0 s: SQLITE_IOERR: disk I/O error`,
    ]);
  });

  it('says once that a failing operation succeeds again, within the same pacing', () => {
    const failures = new ThrottledFailures(1000);
    failures.record(WRITE, FULL, 0);
    failures.record(WRITE, FULL, 100);
    assert.equal(failures.succeeded(WRITE, 200)?.message, undefined, 'within the interval the news waits');
    assert.equal(failures.succeeded(WRITE, 300)?.message, undefined);
    assert.deepEqual(messages(failures.due(1000)), [
      `${WRITE} 1 time in the last 1.0 s: ${FULL}; it succeeds again (2 failures in 0.2 s)`,
    ]);
    assert.deepEqual(messages(failures.due(3000)), []);
    assert.equal(failures.succeeded(WRITE, 3000)?.message, undefined, 'a success after a success says nothing');
    failures.record(WRITE, FULL, 4000);
    assert.deepEqual(failures.succeeded(WRITE, 5500), {
      message: `${WRITE}: it succeeds again (1 failure in 1.5 s)`,
      failures: 0,
    });
  });

  it('forgets a success that a new failure follows within the interval', () => {
    const failures = new ThrottledFailures(1000);
    failures.record(WRITE, FULL, 0);
    failures.succeeded(WRITE, 100);
    failures.record(WRITE, FULL, 200);
    assert.deepEqual(messages(failures.due(1000)), [`${WRITE} 1 time in the last 1.0 s: ${FULL}`]);
  });

  it('hands every waiting line over at once when drained (on close)', () => {
    const failures = new ThrottledFailures(1000);
    failures.record(WRITE, FULL, 0);
    failures.record(WRITE, FULL, 10);
    failures.record('retention run failed', FULL, 20);
    assert.deepEqual(messages(failures.drain(500)), [`${WRITE} 1 time in the last 0.5 s: ${FULL}`]);
    assert.deepEqual(messages(failures.drain(600)), []);
  });
});
