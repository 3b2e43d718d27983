/** The writer: batches after the response, a bounded queue whose drops are counted and logged, retention, flush on close. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import type { EncodedReport } from '../../src/profiler/model/report-encoding.js';
import {
  ReportStoreUnavailableError,
  type PurgeOptions,
  type Retention,
} from '../../src/profiler/storage/report-store.js';
import { ReportWriter, type ReportWriterOptions } from '../../src/profiler/writer/report-writer.js';
import { encoded, report } from '../support/reports.js';
import { DelegatingStore, sqliteStore, storedTokens } from '../support/stores.js';

/** A logger that keeps what it is given. */
function recordingLog() {
  const lines: Array<{ level: string; message: string; fields: unknown }> = [];
  const at = (level: string) => (fields: unknown, message?: string) =>
    void lines.push({ level, message: message ?? String(fields), fields });
  const log = {
    warn: at('warn'),
    error: at('error'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    fatal: at('fatal'),
    child: () => log,
    level: 'info',
    silent: () => {},
  };
  return { log: log as unknown as FastifyBaseLogger, lines };
}

const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

/** A real store, with the size of each batch it was handed, and what it held after it, written down; it fails on demand. */
class CountingStore extends DelegatingStore {
  batches: number[] = [];
  /** Reports held, and bytes of the store's files, after each batch. */
  held: Array<{ reports: number; bytes: number }> = [];
  purges = 0;
  failing = false;
  purgeFailing = false;
  /** The store cannot be reached: every write rejects as unavailable. */
  unreachable = false;
  writeAttempts = 0;
  override async write(reports: readonly EncodedReport[], keep?: number) {
    this.writeAttempts++;
    if (this.unreachable)
      throw new ReportStoreUnavailableError(
        'postgres://vigil@db.internal:5432/vigil',
        'connect ECONNREFUSED 10.0.0.5:5432',
      );
    if (this.failing) throw full();
    this.batches.push(reports.length);
    const outcome = await this.inner.write(reports, keep);
    const bytes = ['', '-wal', '-shm'].reduce(
      (sum, suffix) => sum + (existsSync(this.location + suffix) ? statSync(this.location + suffix).size : 0),
      0,
    );
    this.held.push({ reports: await this.count(), bytes });
    return outcome;
  }
  override async purge(retention: Retention, options?: PurgeOptions) {
    this.purges++;
    if (this.failing || this.purgeFailing) throw full();
    return this.inner.purge(retention, options);
  }
}

let store: CountingStore;
let logged: ReturnType<typeof recordingLog>;
const writer = (options: Partial<ReportWriterOptions> = {}) => new ReportWriter(store, { log: logged.log, ...options });
const tokens = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => (from + i).toString(16).padStart(6, '0'));

beforeEach(async () => {
  store = new CountingStore(sqliteStore(join(mkdtempSync(join(tmpdir(), 'vigil-writer-')), 'profiler.sqlite')));
  await store.open();
  logged = recordingLog();
});
afterEach(() => store.close());

describe('reports are written in batches, not one by one', () => {
  it('writes 2500 queued reports in transactions of at most 1000', async () => {
    const w = writer({ flushDelayMs: 10_000 });
    for (const token of tokens(2500)) w.enqueue(report(token));
    // Asked at once: the store's count is answered by its read thread, after a batch may have gone.
    assert.deepEqual(store.batches, [], 'nothing is written while the response path runs');
    assert.deepEqual(w.pending('000000'), report('000000'), 'a queued report can be read, whole, before it is written');
    await w.flush();
    assert.equal(await store.count(), 2500);
    assert.ok(store.batches.every((size) => size <= 1000));
    assert.ok(store.batches.length <= 3, `batches: ${store.batches}`);
    assert.equal(w.written, 2500);
    assert.equal(w.pending('000000'), undefined);
  });

  it('ends a flush with the reports queued when it began, however many arrive while it writes', async () => {
    let arrived = 25;
    let writes = 0;
    let w: ReportWriter | undefined;
    const arriving = new (class extends DelegatingStore {
      override async write(reports: readonly EncodedReport[], keep?: number) {
        writes++;
        // Each batch written brings ten more reports, as a load the store cannot keep up with would.
        if (arrived < 2000) for (const token of tokens(10, arrived)) w!.enqueue(report(token));
        arrived += 10;
        return this.inner.write(reports, keep);
      }
    })(store);
    w = new ReportWriter(arriving, { log: logged.log, batchSize: 10, flushDelayMs: 10_000 });
    for (const token of tokens(25)) w.enqueue(report(token));
    await w.flush();
    assert.equal(writes, 3, 'the 25 reports queued when the flush began, in 3 batches, and no more');
    await w.close();
  });

  it('writes a lone report after the flush delay without being asked', async () => {
    const w = writer({ flushDelayMs: 5 });
    w.enqueue(report('abcdef'));
    // Nothing asks for a flush: the report must arrive on its own (the store's thread may still be starting).
    const deadline = Date.now() + 5000;
    while (!(await store.read('abcdef')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(await store.read('abcdef'));
    await w.close();
  });
});

describe('the queue is bounded: dropped reports are counted and logged', () => {
  it('drops what does not fit', async () => {
    const w = writer({ maxQueue: 10, flushDelayMs: 10_000 });
    for (const token of tokens(15)) w.enqueue(report(token));
    assert.equal(w.dropped, 5);
    assert.equal(
      logged.lines.filter((line) => line.level === 'warn').length,
      1,
      'one warning at once, not one per report',
    );
    await w.close();
    assert.equal(await store.count(), 10);
    const last = logged.lines.filter((line) => line.level === 'warn').at(-1)!;
    assert.match(last.message, /Debug reports dropped because the write queue is full \(10 reports\): 5 since start/);
    assert.deepEqual(last.fields, { dropped: 5 });
  });

  it('counts a failed write as dropped and logs the error', async () => {
    const w = writer();
    store.failing = true;
    for (const token of tokens(3)) w.enqueue(report(token));
    await w.flush();
    assert.equal(w.dropped, 3);
    assert.ok(
      logged.lines.some(
        (line) =>
          line.level === 'error' && line.message === 'report store write failed: SQLITE_FULL: database or disk is full',
      ),
    );
    await w.close();
  });

  it('reports drops that follow a warning within the second once the second is over', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
    const w = writer({ maxQueue: 1, flushDelayMs: 10_000 });
    w.enqueue(report('000001'));
    w.enqueue(report('000002'));
    w.enqueue(report('000003'));
    assert.equal(logged.lines.filter((line) => line.level === 'warn').length, 1);
    t.mock.timers.tick(999);
    assert.equal(logged.lines.filter((line) => line.level === 'warn').length, 1, 'nothing more within the second');
    t.mock.timers.tick(1);
    const warnings = logged.lines.filter((line) => line.level === 'warn');
    assert.equal(warnings.length, 2);
    assert.match(warnings[1]!.message, /: 2 since start$/);
    t.mock.timers.reset();
    await w.close();
  });

  it('counts a token another writer stored first as dropped, and never writes over its report', async () => {
    await store.write(encoded([report('00000a', { url: 'https://localhost/first' })]));
    const w = writer();
    w.enqueue(report('00000a', { url: 'https://localhost/second' }));
    await w.flush();
    assert.equal(w.dropped, 1);
    assert.equal(w.written, 0);
    assert.equal((await store.read('00000a'))!.url, 'https://localhost/first');
    await w.close();
    assert.match(
      logged.lines.filter((line) => line.level === 'warn').at(-1)!.message,
      /^Debug reports dropped because their tokens were already stored: 1 since start$/,
    );
  });
});

describe('retention is enforced as reports are written', () => {
  it('never keeps more than maxReports after a batch', async () => {
    const w = writer({ retention: { maxReports: 5, maxAgeMs: 86_400_000 }, flushDelayMs: 10_000 });
    await w.open();
    const now = Date.now();
    for (const [i, token] of tokens(12).entries()) w.enqueue(report(token, { time: now + i }));
    await w.flush();
    assert.equal(await store.count(), 5);
    assert.deepEqual(await storedTokens(store), tokens(5, 7));
    assert.equal(w.purged, 7);
    await w.close();
  });

  it('holds no more than maxReports after any batch, however many batches one flush holds', async () => {
    // A flush timer that fires late (a loaded machine) hands the writer many batches at once.
    const w = writer({ retention: { maxReports: 20, maxAgeMs: 86_400_000 }, flushDelayMs: 10_000, batchSize: 10 });
    await w.open();
    const now = Date.now();
    for (const [i, token] of tokens(100).entries()) w.enqueue(report(token, { time: now + i }));
    await w.flush();
    assert.deepEqual(
      store.held.map((held) => held.reports),
      [10, 20, 20, 20, 20, 20, 20, 20, 20, 20],
    );
    assert.deepEqual(await storedTokens(store), tokens(20, 80), 'the newest are kept');
    assert.equal(w.purged, 80);
    await w.close();
  });

  it('holds no more than maxReports while retention runs fail and back off', async () => {
    const w = writer({ retention: { maxReports: 20, maxAgeMs: 86_400_000 }, flushDelayMs: 10_000 });
    store.purgeFailing = true;
    await w.open();
    const now = Date.now();
    for (let i = 0; i < 10; i++) {
      for (const [j, token] of tokens(10, i * 10).entries()) w.enqueue(report(token, { time: now + i * 10 + j }));
      await w.flush();
    }
    assert.ok(store.purges < 10, `retention ran ${store.purges} times: it backs off`);
    assert.ok(
      store.held.every((held) => held.reports <= 20),
      `reports held after each batch: ${store.held.map((held) => held.reports)}`,
    );
    assert.equal(w.dropped, 0);
    store.purgeFailing = false;
    await w.close();
  });

  it("keeps the store's files within what the retention needs plus 2 MiB when one flush holds many batches", async () => {
    // Reports of about 5.5 KB, as a request with a 1200-character URL makes; 1000 of them reach the writer at once.
    const MiB = 1024 * 1024;
    const sized = (token: string, i: number) =>
      report(token, {
        time: Date.now() + i,
        collectors: { request: { url: `/nowhere/${token}?${'q'.repeat(5500)}` } },
      });
    const w = writer({ retention: { maxReports: 200, maxAgeMs: 86_400_000 }, flushDelayMs: 10_000 });
    await w.open();
    for (const [i, token] of tokens(1000).entries()) w.enqueue(sized(token, i));
    await w.flush();
    const needs = 200 * encoded([sized('000000', 0)])[0]!.data.length;
    const peak = Math.max(...store.held.map((held) => held.bytes));
    assert.ok(store.batches.length >= 10, `batches: ${store.batches}`);
    assert.ok(
      peak <= needs + 2 * MiB,
      `the store's files reached ${peak} bytes for a retention of ${needs} bytes of reports`,
    );
    assert.equal(await store.count(), 200);
    await w.close();
  });

  it('applies the retention to what was stored before start', async () => {
    await store.write(encoded(tokens(8).map((token) => report(token, { time: Date.now() }))));
    const w = writer({ retention: { maxReports: 3, maxAgeMs: 86_400_000 } });
    await w.open();
    assert.equal(await store.count(), 3);
    await w.close();
  });

  it('expires old reports while idle', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const w = writer({ retention: { maxReports: 100, maxAgeMs: 1000 }, idlePurgeMs: 50 });
    await w.open();
    await store.write(encoded([report('0000aa', { time: Date.now() - 5000 }), report('0000bb', { time: Date.now() })]));
    t.mock.timers.tick(49);
    await w.flush(); // resolves once the writer's chain of work, idle purges included, is done
    assert.deepEqual(await storedTokens(store), ['0000aa', '0000bb'], 'not purged before the idle interval');
    t.mock.timers.tick(1);
    await w.flush();
    t.mock.timers.reset();
    assert.deepEqual(await storedTokens(store), ['0000bb']);
    assert.equal(w.purged, 1);
    await w.close();
  });
});

describe("retention runs under the store's lease: a writer skips it while another holds it", () => {
  it('counts the skipped runs, deletes nothing past the age, and leaves the store to the holder, whose last run applies it', async () => {
    // The age: the number kept is applied by every write itself, lease or not.
    const retention = { maxReports: 1000, maxAgeMs: 60_000 };
    const holder = writer({ retention, retentionLeaseMs: 600_000, flushDelayMs: 10_000 });
    await holder.open();
    const other = writer({ retention, retentionLeaseMs: 600_000, flushDelayMs: 10_000, idlePurgeMs: 5 });
    await other.open();
    assert.equal(other.retentionSkipped, 1, 'the lease was taken when the first writer opened');
    const old = Date.now() - 120_000;
    for (const [i, token] of tokens(10).entries()) other.enqueue(report(token, { time: old + i }));
    await other.flush();
    // The other writer tries the retention again when idle, and skips it each time.
    while (other.retentionSkipped < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(await store.count(), 10, 'the other writer left the retention to the holder');
    assert.equal(other.purged, 0);
    await holder.close();
    assert.equal(await store.count(), 0);
    assert.equal(holder.purged, 10);
    await other.close();
  });
});

describe('close writes what is queued', () => {
  it('flushes every queued report before resolving', async () => {
    const w = writer({ flushDelayMs: 60_000 });
    for (const token of tokens(40)) w.enqueue(report(token));
    assert.equal(w.queued, 40);
    await w.close();
    assert.equal(await store.count(), 40);
    w.enqueue(report('ffffff'));
    assert.equal(w.dropped, 1, 'a report after close is dropped, not lost silently');
  });
});

describe('a report is stored even when a section of it cannot be serialized', () => {
  it('keeps a report whose section cannot be serialized, that section replaced by the error', async () => {
    const w = writer({ flushDelayMs: 10_000 });
    w.enqueue(report('00000a', { collectors: { request: { method: 'GET' }, app: { big: 10n } } }));
    await w.close();
    assert.equal(w.dropped, 0);
    const stored = await store.read('00000a');
    assert.deepEqual(stored!.collectors.request, { method: 'GET' });
    assert.match(
      (stored!.collectors.app as { collectorError: string }).collectorError,
      /^the section cannot be serialized: .*BigInt/,
    );
  });
});

describe('a failing store is logged at most once a second per kind of failure, with counts, and retention backs off', () => {
  it('writes one line for many failed batches and counts the rest; retention is not retried after every batch', async () => {
    const w = writer({ retention: { maxReports: 5, maxAgeMs: 86_400_000 }, flushDelayMs: 10_000 });
    // The store fails from the start: the retention run of open() fails too.
    store.failing = true;
    const started = Date.now();
    await w.open();
    for (const token of tokens(60)) {
      w.enqueue(report(token));
      await w.flush();
    }
    const seconds = (Date.now() - started) / 1000;
    assert.equal(w.dropped, 60, 'every report of a failed batch is dropped and counted');
    const failureLines = () => logged.lines.filter((line) => line.level === 'error');
    // Two kinds fail here (the write and the retention run): at most one line a second each.
    assert.ok(
      failureLines().length <= 2 * (Math.ceil(seconds) + 1),
      `${failureLines().length} error lines in ${seconds} s:\n${failureLines()
        .map((line) => line.message)
        .join('\n')}`,
    );
    const purges = store.purges;
    assert.ok(
      purges <= 2 + seconds,
      `retention was tried ${purges} times in ${seconds} s: it must back off, not run after every batch`,
    );
    store.failing = false;
    await w.close();
    // Every failed batch is in a line: written at once, or counted in a line that follows.
    const counted = failureLines()
      .map((line) =>
        /^report store write failed(?: (\d+) times? in the last \d+\.\d s)?: SQLITE_FULL: database or disk is full/.exec(
          line.message,
        ),
      )
      .filter((match) => match !== null)
      .reduce((sum, match) => sum + Number(match[1] ?? 1), 0);
    assert.equal(
      counted,
      60,
      failureLines()
        .map((line) => line.message)
        .join('\n'),
    );
    assert.ok(
      failureLines().every((line) => !String(line.message).includes('\n    at ')),
      'no stack per failure',
    );
  });

  it('writes again, and says so, once the store takes reports again', async () => {
    const w = writer({ flushDelayMs: 10_000 });
    store.failing = true;
    w.enqueue(report('00000a'));
    await w.flush();
    store.failing = false;
    w.enqueue(report('00000b'));
    await w.flush();
    assert.ok(await store.read('00000b'));
    await w.close();
    assert.ok(
      logged.lines.some((line) =>
        /^report store write failed.*it succeeds again \(1 failure in \d+\.\d s\)$/.test(line.message),
      ),
      logged.lines.map((line) => line.message).join('\n'),
    );
  });
});

/**
 * Lets the writer's promises and the store's thread run while timers are mocked: turns of the
 * event loop until `check` holds, or for 200 ms of the real clock (performance.now is not mocked).
 */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const end = performance.now() + 200;
  while (!(await check()) && performance.now() < end) await new Promise((resolve) => setImmediate(resolve));
}

describe('a store that cannot be reached: reports wait in the queue, are tried again after a growing delay, and are written once it is back', () => {
  it('keeps the reports queued and readable, tries again after 0.2 s, 0.4 s..., not at every report, and writes them all once the store is back', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
    const w = writer({ flushDelayMs: 10 });
    store.unreachable = true;
    for (const token of tokens(30)) w.enqueue(report(token));
    t.mock.timers.tick(10);
    await until(() => store.writeAttempts === 1 && w.queued === 30);
    assert.equal(store.writeAttempts, 1);
    assert.equal(w.queued, 30, 'the reports wait');
    assert.equal(w.dropped, 0);
    assert.deepEqual(w.pending('000000'), report('000000'), 'and can be read');
    for (const token of tokens(10, 30)) w.enqueue(report(token));
    t.mock.timers.tick(100);
    await until(() => false);
    assert.equal(store.writeAttempts, 1, 'new reports do not bring the next attempt forward');
    t.mock.timers.tick(100);
    await until(() => store.writeAttempts === 2);
    assert.equal(store.writeAttempts, 2, 'tried again 0.2 s after the failure');
    t.mock.timers.tick(399);
    await until(() => false);
    assert.equal(store.writeAttempts, 2);
    t.mock.timers.tick(1);
    await until(() => store.writeAttempts === 3);
    assert.equal(store.writeAttempts, 3, 'then 0.4 s after');
    store.unreachable = false;
    t.mock.timers.tick(800);
    for (let wait = 0; wait < 25 && w.written !== 40; wait++) await until(() => w.written === 40);
    assert.equal(store.writeAttempts, 4);
    assert.deepEqual(await storedTokens(store), tokens(40));
    assert.equal(w.written, 40);
    assert.equal(w.dropped, 0);
    assert.equal(w.queued, 0);
    const errors = logged.lines.filter((line) => line.level === 'error').map((line) => line.message);
    assert.match(
      errors[0]!,
      /^report store write failed: the report store postgres:\/\/vigil@db\.internal:5432\/vigil is unavailable: connect ECONNREFUSED 10\.0\.0\.5:5432 \(30 reports wait; next attempt in 0\.2 s\)$/,
    );
    t.mock.timers.tick(1000);
    assert.ok(
      logged.lines.some((line) =>
        /^report store write failed.*it succeeds again \(3 failures in \d+\.\d s\)$/.test(line.message),
      ),
      logged.lines.map((line) => line.message).join('\n'),
    );
    t.mock.timers.reset();
    await w.close();
  });

  it('drops and counts the reports beyond the queue: answered minus stored is the dropped count', async () => {
    const w = writer({ maxQueue: 10, flushDelayMs: 10_000 });
    store.unreachable = true;
    for (const token of tokens(15)) w.enqueue(report(token));
    await w.flush();
    assert.equal(w.queued, 10);
    assert.equal(w.dropped, 5);
    store.unreachable = false;
    await w.flush();
    assert.equal(await store.count(), 10);
    assert.equal(15 - (await store.count()), w.dropped);
    await w.close();
  });

  it('bounds the queue by bytes as well as by reports', async () => {
    const w = writer({ maxQueueBytes: 64 * 1024, flushDelayMs: 10_000 });
    store.unreachable = true;
    // About 21 KB each (a string is cut at 8192 characters).
    const big = (token: string) =>
      report(token, { collectors: { request: { a: 'x'.repeat(8000), b: 'y'.repeat(8000), c: 'z'.repeat(5000) } } });
    for (const token of tokens(5)) w.enqueue(big(token));
    assert.equal(w.queued, 3, 'three reports of 21 KB fit in 64 KiB, the fourth does not');
    assert.equal(w.dropped, 2);
    assert.match(
      logged.lines.filter((line) => line.level === 'warn')[0]!.message,
      /^Debug reports dropped because the write queue is full \(64 KiB of reports\): 1 since start$/,
    );
    store.unreachable = false;
    await w.close();
    assert.equal(await store.count(), 3);
  });

  it('drops and counts what is still queued when it closes while the store cannot be reached', async () => {
    const w = writer({ flushDelayMs: 10_000 });
    store.unreachable = true;
    for (const token of tokens(5)) w.enqueue(report(token));
    await w.close();
    assert.equal(w.dropped, 5);
    assert.equal(w.queued, 0);
    assert.match(
      logged.lines.filter((line) => line.level === 'warn').at(-1)!.message,
      /^Debug reports dropped because the report store was unavailable when the writer closed: 5 since start$/,
    );
  });
});

describe('a full store: reports are dropped and counted, and stored again once there is room', () => {
  it('drops the batches SQLite refuses with SQLITE_FULL, keeps the others whole, and takes reports again after a purge', async () => {
    // A page limit on the store's connection fails writes exactly as a full disk does (SQLITE_FULL).
    const small = sqliteStore(join(mkdtempSync(join(tmpdir(), 'vigil-full-')), 'profiler.sqlite'), {
      maxPageCount: 60,
    });
    await small.open();
    try {
      const w = new ReportWriter(small, { log: logged.log, flushDelayMs: 10_000 });
      const big = (token: string) => report(token, { collectors: { request: { body: `${token} `.repeat(3000) } } });
      for (let i = 0; i < 30; i++) {
        for (const token of tokens(3, i * 3)) w.enqueue(big(token));
        await w.flush();
      }
      assert.ok(w.dropped > 0, 'the full store refused reports');
      assert.ok(w.written > 0);
      assert.equal(await small.count(), w.written, 'what the writer counts as written is what is stored');
      assert.ok(logged.lines.some((line) => line.level === 'error' && /SQLITE_FULL/.test(line.message)));
      await small.clear();
      w.enqueue(big('abcdef'));
      await w.flush();
      assert.ok(await small.read('abcdef'), 'once there is room the store takes reports again');
      await w.close();
    } finally {
      await small.close();
    }
  });
});
