import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIRST_WINDOW, IdWindows } from './search-windows.js';

function all(windows: IdWindows): Array<[number, number]> {
  const read: Array<[number, number]> = [];
  for (let window = windows.next(); window; window = windows.next()) read.push([window.low, window.high]);
  return read;
}

describe('the windows of ids a search by part reads', () => {
  it('covers every id once, newest first, each window twice as wide', () => {
    const read = all(new IdWindows(20_000, 1_000));
    assert.deepEqual(read, [
      [20_000 - FIRST_WINDOW, 20_000],
      [20_000 - 3 * FIRST_WINDOW, 20_000 - FIRST_WINDOW],
      [0, 20_000 - 3 * FIRST_WINDOW],
    ]);
  });
  it('reads every id in one window without a budget, and none in an empty store', () => {
    assert.deepEqual(all(new IdWindows(5_000_000, undefined)), [[0, 5_000_000]]);
    assert.deepEqual(all(new IdWindows(0, 20)), []);
  });
  it('stops once the budget is spent, at the id below the last window read', () => {
    let now = 0;
    const windows = new IdWindows(10_000, 20, () => now);
    windows.next();
    now = 19;
    assert.equal(windows.stoppedAt(), undefined);
    now = 20;
    assert.equal(windows.stoppedAt(), 10_000 - FIRST_WINDOW + 1);
    windows.next();
    windows.next();
    assert.equal(windows.stoppedAt(), undefined, 'nothing is left to read');
  });
});
