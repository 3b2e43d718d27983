/** The embedded store: what it keeps, what it refuses, how it searches and what retention deletes. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteReportStore } from '../../src/profiler/storage/sqlite-store.js';
import { encoded, report, T0 } from '../support/reports.js';

let store: SqliteReportStore;
beforeEach(() => {
  store = new SqliteReportStore(join(mkdtempSync(join(tmpdir(), 'vigil-store-')), 'sub', 'profiler.sqlite'));
});
afterEach(() => store.close());

describe('a written report reads back whole', () => {
  it('keeps the summary and every section', async () => {
    const written = report('a1b2c3', { collectors: { request: { headers: { host: 'x' } }, logs: { lines: [], omitted: 0 } } });
    assert.deepEqual(await store.write(encoded([written])), { rejected: [], failed: [] });
    assert.deepEqual(await store.read('a1b2c3'), written);
    assert.equal(await store.read('ffffff'), undefined);
    assert.equal(await store.count(), 1);
    assert.deepEqual(await store.tokens(), ['a1b2c3']);
  });
});

describe('a token already stored is never overwritten', () => {
  it('rejects the newcomer and keeps the first report', async () => {
    await store.write(encoded([report('000001', { url: 'https://localhost/first' })]));
    const { rejected } = await store.write(encoded([report('000001', { url: 'https://localhost/second' }), report('000002')]));
    assert.deepEqual(rejected, ['000001']);
    assert.equal((await store.read('000001'))!.url, 'https://localhost/first');
    assert.equal(await store.count(), 2);
  });
});

describe('search filters by ip, method, status, url, token and time, newest first', () => {
  beforeEach(async () => {
    await store.write(encoded([
      report('aaaa01', { time: T0, method: 'GET', status: 404, ip: '127.0.0.1', url: 'https://localhost/robots.txt' }),
      report('aaaa02', { time: T0 + 1000, method: 'POST', status: 405, ip: '192.168.1.20', url: 'https://localhost/items' }),
      report('bbbb03', { time: T0 + 2000, method: 'GET', status: 200, ip: '::1', url: 'https://localhost/hello?x=1' }),
      report('bbbb04', { time: T0 + 86_400_000, method: 'PUT', status: 404, ip: '192.168.1.21', url: 'https://localhost/items/abc' }),
    ]));
  });
  const tokens = async (filters: Parameters<SqliteReportStore['search']>[0]) => (await store.search(filters)).map((found) => found.token);

  it('lists everything newest first without filters, summaries only', async () => {
    const found = await store.search({});
    assert.deepEqual(found.map((r) => r.token), ['bbbb04', 'bbbb03', 'aaaa02', 'aaaa01']);
    assert.deepEqual(Object.keys(found[0]!).sort(), ['duration', 'ip', 'method', 'status', 'time', 'token', 'url']);
  });
  it('matches part of the IP', async () => assert.deepEqual(await tokens({ ip: '192.168.1.' }), ['bbbb04', 'aaaa02']));
  it('matches the method exactly, in any case', async () => assert.deepEqual(await tokens({ method: 'get' }), ['bbbb03', 'aaaa01']));
  it('matches the status', async () => assert.deepEqual(await tokens({ statusCode: 404 }), ['bbbb04', 'aaaa01']));
  it('matches part of the URL, query included', async () => {
    assert.deepEqual(await tokens({ url: '/items' }), ['bbbb04', 'aaaa02']);
    assert.deepEqual(await tokens({ url: '?x=1' }), ['bbbb03']);
  });
  it('matches a token prefix', async () => assert.deepEqual(await tokens({ token: 'AAAA' }), ['aaaa02', 'aaaa01']));
  it('keeps start and end inclusive', async () => assert.deepEqual(await tokens({ start: T0 + 1000, end: T0 + 2000 }), ['bbbb03', 'aaaa02']));
  it('combines filters', async () => assert.deepEqual(await tokens({ statusCode: 404, ip: '192.' }), ['bbbb04']));
  it('stops at the limit', async () => assert.deepEqual(await tokens({ limit: 2 }), ['bbbb04', 'bbbb03']));
  it('takes a filter as data, never as SQL', async () => assert.deepEqual(await tokens({ url: "' OR 1=1 --" }), []));
});

describe('retention deletes the oldest beyond the count and everything beyond the age', () => {
  beforeEach(async () => {
    await store.write(encoded(Array.from({ length: 10 }, (_, i) => report(`00000${i}`, { time: T0 + i * 60_000 }))));
  });

  it('keeps the newest maxReports and returns the deleted tokens', async () => {
    const deleted = await store.purge({ maxReports: 4, maxAgeMs: 365 * 86_400_000 }, T0 + 10 * 60_000);
    assert.deepEqual(deleted.sort(), ['000000', '000001', '000002', '000003', '000004', '000005']);
    assert.deepEqual((await store.tokens()).sort(), ['000006', '000007', '000008', '000009']);
  });

  it('deletes reports older than maxAge', async () => {
    // At T0 + 10 min, a 3-minute age keeps the reports of minutes 7, 8 and 9.
    const deleted = await store.purge({ maxReports: 100, maxAgeMs: 3 * 60_000 }, T0 + 10 * 60_000);
    assert.equal(deleted.length, 7);
    assert.deepEqual((await store.tokens()).sort(), ['000007', '000008', '000009']);
  });

  it('applies both limits: whichever deletes more', async () => {
    await store.purge({ maxReports: 2, maxAgeMs: 3 * 60_000 }, T0 + 10 * 60_000);
    assert.deepEqual((await store.tokens()).sort(), ['000008', '000009']);
  });

  it('deletes nothing within the limits', async () => {
    assert.deepEqual(await store.purge({ maxReports: 10, maxAgeMs: 86_400_000 }, T0 + 10 * 60_000), []);
  });

  it('clears everything on demand', async () => {
    assert.equal((await store.clear()).length, 10);
    assert.equal(await store.count(), 0);
  });
});

describe('a write given the number of reports to keep deletes the oldest in the same transaction', () => {
  const sized = (i: number) => report(i.toString(16).padStart(6, '0'), { time: T0 + i, collectors: { request: { body: String(i).padStart(5000, '.') } } });
  const batch = (from: number, length: number) => encoded(Array.from({ length }, (_, j) => sized(from + j)));
  const tokensOf = (from: number, length: number) => Array.from({ length }, (_, j) => (from + j).toString(16).padStart(6, '0'));
  const pageCount = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.pragma('page_count', { simple: true }) as number;
    } finally {
      db.close();
    }
  };

  it('never holds more than keep, returns the deleted tokens, and the new reports take their pages', async () => {
    assert.deepEqual((await store.write(batch(0, 50), 100)).deleted, []);
    assert.deepEqual((await store.write(batch(50, 50), 100)).deleted, []);
    const filled = pageCount(store.file);
    for (let from = 100; from < 1100; from += 50) {
      const { deleted } = await store.write(batch(from, 50), 100);
      assert.deepEqual(deleted!.sort(), tokensOf(from - 100, 50), 'the oldest go');
      assert.equal(await store.count(), 100);
    }
    assert.deepEqual((await store.tokens()).sort(), tokensOf(1000, 100));
    // 1000 more reports went through a file sized for 100: it has not grown for them.
    assert.ok(pageCount(store.file) <= filled + 4, `${pageCount(store.file)} pages, ${filled} after the first 100 reports`);
  });

  it('keeps the newest of a batch larger than keep by itself', async () => {
    const { deleted } = await store.write(batch(0, 12), 5);
    assert.deepEqual(deleted!.sort(), tokensOf(0, 7));
    assert.deepEqual((await store.tokens()).sort(), tokensOf(7, 5));
  });

  it('counts again what another connection deleted, instead of deleting more than needed', async () => {
    await store.write(batch(0, 100), 100);
    // The command line's purge, say: its own connection to the same file.
    const other = new SqliteReportStore(store.file);
    try {
      await other.purge({ maxReports: 50, maxAgeMs: 365 * 86_400_000 }, T0);
    } finally {
      await other.close();
    }
    assert.deepEqual((await store.write(batch(100, 10), 100)).deleted, []);
    assert.equal(await store.count(), 60);
  });
});

describe('a stack trace shared by many reports is stored once', () => {
  const trace = [{ function: 'noRouteFound', file: '/srv/src/routing/unmatched.ts', line: 45, column: 10, own: true, excerpt: [{ number: 45, text: 'throw' }] }];
  const failing = (token: string) => report(token, { collectors: { exception: { class: 'NotFoundHttpError', message: 'No route', trace } } });
  const traceRows = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT count(*) FROM traces').pluck().get() as number;
    } finally {
      db.close();
    }
  };

  it('reads every report back with its trace, from one stored copy', async () => {
    await store.write(encoded([failing('00000a'), failing('00000b')]));
    await store.write(encoded([failing('00000c')]));
    for (const token of ['00000a', '00000b', '00000c']) assert.deepEqual((await store.read(token))!.collectors.exception, { class: 'NotFoundHttpError', message: 'No route', trace });
    assert.equal(traceRows(store.file), 1);
  });

  it('deletes a trace with the last report that used it', async () => {
    await store.write(encoded([failing('00000a'), report('00000b', { time: T0 + 1 })]));
    await store.purge({ maxReports: 1, maxAgeMs: 365 * 86_400_000 }, T0);
    assert.equal(traceRows(store.file), 0);
    await store.write(encoded([failing('00000c')]));
    assert.deepEqual((await store.read('00000c'))!.collectors.exception, { class: 'NotFoundHttpError', message: 'No route', trace });
  });
});

describe('a store written by version 1 (rows in token order) is moved to the current layout on open', () => {
  it('keeps every report, readable and in time order', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vigil-v1-')), 'profiler.sqlite');
    const v1 = new Database(file);
    v1.exec(`CREATE TABLE reports (token TEXT PRIMARY KEY, time INTEGER NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
      status INTEGER NOT NULL, ip TEXT NOT NULL, duration REAL NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
      CREATE INDEX reports_by_time ON reports (time);`);
    const insert = v1.prepare('INSERT INTO reports VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run('ffff01', T0 + 1, 'GET', 'https://localhost/b', 404, '::1', 2, JSON.stringify({ exception: { class: 'E', trace: [{ line: 1 }] } }));
    insert.run('000002', T0, 'GET', 'https://localhost/a', 200, '::1', 1, JSON.stringify({ request: { method: 'GET' } }));
    v1.close();
    const migrated = new SqliteReportStore(file);
    try {
      assert.deepEqual((await migrated.search({})).map((r) => r.token), ['ffff01', '000002']);
      assert.deepEqual((await migrated.read('ffff01'))!.collectors, { exception: { class: 'E', trace: [{ line: 1 }] } });
      await migrated.write(encoded([report('000003', { time: T0 + 2 })]));
      assert.equal(await migrated.count(), 3);
    } finally {
      await migrated.close();
    }
  });
});

describe('the store gives disk space back after retention', () => {
  const bytes = (file: string) => (existsSync(file) ? statSync(file).size : 0);

  it('empties the WAL after a retention run and returns the pages of deleted reports', async () => {
    const big = (i: number) => report(i.toString(16).padStart(6, '0'), { time: T0 + i, collectors: { request: { body: `${i} `.repeat(1500) } } });
    for (let i = 0; i < 2000; i += 100) await store.write(encoded(Array.from({ length: 100 }, (_, j) => big(i + j))));
    const written = bytes(store.file) + bytes(`${store.file}-wal`);
    await store.purge({ maxReports: 10, maxAgeMs: 365 * 86_400_000 }, T0);
    assert.equal(bytes(`${store.file}-wal`), 0, 'the WAL is checkpointed and truncated');
    const kept = bytes(store.file);
    // 10 reports of about 8 KB each, in a file that held 2000 of them.
    assert.ok(kept < 512 * 1024, `the file keeps ${kept} bytes after ${written} were written`);
    await store.clear();
    assert.equal(bytes(`${store.file}-wal`), 0);
    // Up to 1 MiB of free pages is kept for the next reports (storage/sqlite-disk.ts).
    assert.ok(bytes(store.file) <= 1024 * 1024 + 64 * 1024, `an empty store keeps ${bytes(store.file)} bytes`);
  });
});
