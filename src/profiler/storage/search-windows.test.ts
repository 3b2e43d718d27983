import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdWindows, NewestFirstReading, WINDOW } from './search-windows.js';

function all(windows: IdWindows): Array<[number, number]> {
  const read: Array<[number, number]> = [];
  for (let window = windows.next(); window; window = windows.next()) read.push([window.low, window.high]);
  return read;
}

describe('the windows of ids a search by part reads', () => {
  it('covers every id once, newest first, in windows of the same width', () => {
    const read = all(new IdWindows(10_000, 1_000));
    assert.deepEqual(read, [
      [10_000 - WINDOW, 10_000],
      [10_000 - 2 * WINDOW, 10_000 - WINDOW],
      [0, 10_000 - 2 * WINDOW],
    ]);
  });
  it('reads every id in one window without a budget, and none in an empty store', () => {
    assert.deepEqual(all(new IdWindows(5_000_000, undefined)), [[0, 5_000_000]]);
    assert.deepEqual(all(new IdWindows(0, 20)), []);
  });
  it('ends above the lowest id it is given', () => {
    assert.deepEqual(all(new IdWindows(10_000, 20, 9_000)), [[9_000, 10_000]]);
    assert.deepEqual(all(new IdWindows(10_000, undefined, 9_000)), [[9_000, 10_000]]);
    assert.deepEqual(all(new IdWindows(9_000, 20, 9_000)), []);
  });
});

describe('a search reading newest first', () => {
  const row = (id: number) => ({
    id,
    token: `t${id}`,
    time: 0,
    method: 'GET',
    url: '/',
    status: 200,
    ip: '',
    duration: 0,
    route: null,
    exception: null,
    fingerprint: null,
    statements: null,
    calls: null,
  });
  const tokens = (reading: NewestFirstReading) => reading.result().reports.map((report) => report.token);

  it('reads on to the oldest without a budget, and keeps no id', () => {
    const reading = new NewestFirstReading(10, undefined);
    assert.equal(reading.take([row(9), row(7)], 5), true);
    assert.equal(reading.take([row(3)], 1), false);
    assert.deepEqual([tokens(reading), reading.result().continueBelow], [['t9', 't7', 't3'], undefined]);
    assert.ok(reading.result().reports.every((report) => !('id' in report)));
  });
  it('stops at its limit without saying where: the page is full', () => {
    const reading = new NewestFirstReading(2, 60_000);
    assert.equal(reading.take([row(9), row(8), row(7)], 5), false);
    assert.deepEqual([tokens(reading), reading.result().continueBelow], [['t9', 't8'], undefined]);
  });
  it('once its budget is spent, stops after the report it read, to go on below it', () => {
    let now = 0;
    const reading = new NewestFirstReading(10, 20, () => now);
    assert.equal(
      reading.take(
        (function* () {
          yield row(9);
          now = 20;
          yield row(8);
          yield row(7);
        })(),
        1,
      ),
      false,
    );
    assert.deepEqual([tokens(reading), reading.result().continueBelow], [['t9', 't8'], 8]);
  });
  it('once its budget is spent, stops after a window without a report, to go on below it', () => {
    let now = 0;
    const reading = new NewestFirstReading(10, 20, () => now);
    assert.equal(reading.take([], 15_905), true);
    now = 20;
    assert.equal(reading.take([], 11_809), false);
    assert.deepEqual([tokens(reading), reading.result().continueBelow], [[], 11_809]);
  });
  it('keeps only the rows that meet the filters, and looks at the time after a window of rows it did not keep', () => {
    let now = 0;
    const reading = new NewestFirstReading<{ id: number; hit: number }>(10, 20, () => now);
    const rows = function* () {
      yield { id: 100_000, hit: 1 };
      now = 20;
      for (let id = 99_999; id > 0; id--) yield { id, hit: 0 };
    };
    // The time was spent after the first row; the search reads on to the end of a window of rows not kept.
    assert.equal(reading.take(rows(), 1), false);
    assert.deepEqual([reading.kept().map((row) => row.id), reading.continueBelow()], [[100_000], 100_000 - WINDOW]);
    const unbudgeted = new NewestFirstReading<{ id: number; hit: number }>(10, undefined);
    assert.equal(unbudgeted.take(rows(), 1), false);
    assert.deepEqual([unbudgeted.kept().length, unbudgeted.continueBelow()], [1, undefined]);
  });
  it('does not stop after rows that may be none (the tail), nor when nothing is left below', () => {
    const reading = new NewestFirstReading(10, 0);
    assert.equal(reading.take([], 500, false), true);
    assert.equal(reading.take([], 1), false);
    assert.equal(reading.result().continueBelow, undefined);
  });
});
