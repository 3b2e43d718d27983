import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EncodedReport } from '../model/report-encoding.js';
import { WriteQueue } from './write-queue.js';

/** A report of `bytes` bytes (its data and URL), as the queue counts them. */
const sized = (token: string, bytes = 100): EncodedReport => ({
  token,
  time: 0,
  method: 'GET',
  url: 'u',
  status: 404,
  ip: '::1',
  duration: 1,
  route: null,
  exception: null,
  fingerprint: null,
  statements: null,
  calls: null,
  asset: false,
  data: 'x'.repeat(bytes - 1),
  trace: undefined,
});
const tokensOf = (reports: EncodedReport[]) => reports.map((report) => report.token);

describe('the write queue holds reports oldest first, bounded by count and bytes, and hands them out in batches', () => {
  it('makes batches of at most batchSize reports and maxBatchBytes bytes, one report at least', () => {
    const queue = new WriteQueue({ maxReports: 100, maxBytes: 1e6, batchSize: 3, maxBatchBytes: 250 });
    for (const token of ['a', 'b', 'c', 'd']) queue.push(sized(token));
    queue.push(sized('big', 1000));
    assert.equal(queue.batchReady, true);
    assert.deepEqual(tokensOf(queue.takeBatch()), ['a', 'b'], '250 bytes hold two reports of 100');
    assert.deepEqual(tokensOf(queue.takeBatch()), ['c', 'd']);
    assert.deepEqual(tokensOf(queue.takeBatch()), ['big'], 'a report larger than a batch goes alone');
    assert.equal(queue.empty, true);
    assert.equal(queue.held, 5, 'taken reports stay held until they are released');
  });

  it('puts a batch the store could not take back at the head, in order, readable all along', () => {
    const queue = new WriteQueue({ maxReports: 100, maxBytes: 1e6, batchSize: 2, maxBatchBytes: 1e6 });
    for (const token of ['a', 'b', 'c']) queue.push(sized(token));
    const batch = queue.takeBatch();
    queue.push(sized('d'));
    assert.equal(queue.get('a')?.token, 'a');
    queue.putBack(batch);
    assert.deepEqual(tokensOf(queue.takeBatch()), ['a', 'b']);
    assert.deepEqual(tokensOf(queue.takeBatch()), ['c', 'd']);
  });

  it('refuses beyond maxReports or maxBytes held, and makes room as reports are released', () => {
    const queue = new WriteQueue({ maxReports: 2, maxBytes: 250, batchSize: 10, maxBatchBytes: 1e6 });
    queue.push(sized('a'));
    assert.equal(queue.refusal(200), 'the write queue is full (250 bytes of reports)');
    queue.push(sized('b'));
    assert.equal(queue.refusal(1), 'the write queue is full (2 reports)');
    const batch = queue.takeBatch();
    assert.equal(queue.refusal(1), 'the write queue is full (2 reports)', 'a batch being written is still held');
    queue.release(batch);
    assert.equal(queue.refusal(200), undefined);
    assert.equal(queue.held, 0);
  });

  it('counts a token queued twice once, reads back the newer report, and empties what waits on demand', () => {
    const queue = new WriteQueue({ maxReports: 10, maxBytes: 1000, batchSize: 10, maxBatchBytes: 1e6 });
    queue.push(sized('a', 100));
    queue.push(sized('a', 300));
    assert.equal(queue.held, 1);
    assert.equal(queue.get('a')?.data.length, 299);
    assert.equal(queue.refusal(700), undefined, '300 bytes held, not 400');
    assert.equal(queue.refusal(701), 'the write queue is full (1000 bytes of reports)');
    assert.equal(queue.discardWaiting(), 2);
    assert.equal(queue.held, 0);
    assert.equal(queue.refusal(1000), undefined);
  });
});
