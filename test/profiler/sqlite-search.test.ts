/**
 * The SQLite store's search on a large store (issue 32): reads run on a thread of their own,
 * never on the thread that answers requests; url and IP parts are answered by trigram
 * indexes kept in step with writes and retention; a store made by the previous version
 * gets the indexes at open, and a large one serves while they are built.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { encodeReport, type EncodedReport } from '../../src/profiler/model/report-encoding.js';
import { startInProcess } from '../support/in-process-service.js';
import { encoded, report, T0 } from '../support/reports.js';
import { ask } from '../support/service.js';
import { sqliteStore, storeOf } from '../support/stores.js';
import { WINDOW } from '../../src/profiler/storage/search-windows.js';
import { openSqlite, type SqliteDatabase } from '../../src/profiler/storage/sqlite/sqlite-driver.js';

const YEAR_MS = 365 * 86_400_000;
const newFile = () => join(mkdtempSync(join(tmpdir(), 'vigil-search-')), 'profiler.sqlite');

/** The tables of version 3, the layout the previous release creates, as it wrote them. */
const VERSION_3 = `
CREATE TABLE reports (id INTEGER PRIMARY KEY, token TEXT NOT NULL, time INTEGER NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
  status INTEGER NOT NULL, ip TEXT NOT NULL, duration REAL NOT NULL, data TEXT NOT NULL, trace TEXT);
CREATE UNIQUE INDEX reports_by_token ON reports (token);
CREATE INDEX reports_by_time ON reports (time);
CREATE INDEX reports_by_trace ON reports (trace) WHERE trace IS NOT NULL;
CREATE TABLE traces (hash TEXT PRIMARY KEY, json TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE token_counter (id INTEGER PRIMARY KEY CHECK (id = 1), next INTEGER NOT NULL, key BLOB NOT NULL);
CREATE TABLE retention_lease (id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL, expires INTEGER NOT NULL);
PRAGMA user_version = 3;
`;

const token = (n: number) => (Math.imul(n, 0x9e3779b1) & 0xffffff).toString(16).padStart(6, '0');
const urlOf = (n: number) => `https://shop.example/api/orders/${n}/items`;

/** A store file as version 3 left it, with `count` reports written straight into it. */
function version3Store(count: number): string {
  const file = newFile();
  const db = openSqlite(file);
  db.pragma('journal_mode = WAL');
  db.exec(VERSION_3);
  db.prepare('INSERT INTO token_counter (id, next, key) VALUES (1, 0, ?)').run(Buffer.alloc(32, 7));
  const insert = db.prepare(
    'INSERT INTO reports (token, time, method, url, status, ip, duration, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const data = JSON.stringify({ request: { method: 'GET' } });
  db.transaction(() => {
    for (let n = 0; n < count; n++)
      insert.run(token(n), T0 + n, n % 2 ? 'POST' : 'GET', urlOf(n), n % 3 ? 200 : 404, `10.0.${n % 256}.1`, 1, data);
  })();
  db.close();
  return file;
}

function inFile<T>(file: string, read: (db: SqliteDatabase) => T): T {
  const db = openSqlite(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const objects = (file: string) =>
  inFile(
    file,
    (db) => db.prepare("SELECT name FROM sqlite_master WHERE type IN ('index', 'table')").pluck().all() as string[],
  );
const indexing = (file: string) =>
  inFile(file, (db) => db.prepare('SELECT count(*) FROM search_backfill').pluck().get() as number) > 0;
/** Reports stored but not in the trigram tables yet (the search tail), and deleted ones still in them. */
const tailOf = (file: string) =>
  inFile(
    file,
    (db) =>
      db
        .prepare(
          'SELECT coalesce(max(id), 0) - (SELECT after FROM search_tail) + (SELECT count(*) FROM search_deleted) FROM reports',
        )
        .pluck()
        .get() as number,
  );

/** FTS5's own check of both trigram tables against the reports; throws SQLITE_CORRUPT_VTAB on a mismatch. */
function checkTrigramTables(file: string): void {
  const db = openSqlite(file);
  try {
    for (const table of ['reports_url_search', 'reports_ip_search'])
      db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 1)`).run();
  } finally {
    db.close();
  }
}

async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still not: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a store made by the previous version gets the search indexes at open, and keeps every report', () => {
  it('a small store: the B-trees and trigram tables are there, and every search finds what it did', async () => {
    const file = version3Store(30);
    const store = sqliteStore(file);
    await store.open();
    try {
      await until(() => !indexing(file), 'indexed', 10_000);
      for (const name of ['reports_by_status', 'reports_by_method', 'reports_url_search', 'reports_ip_search'])
        assert.ok(objects(file).includes(name), name);
      assert.equal(await store.count(), 30);
      assert.deepEqual(
        (await store.search({ url: '/orders/12/' })).reports.map((r) => r.token),
        [token(12)],
      );
      assert.deepEqual(
        (await store.search({ ip: '10.0.29.' })).reports.map((r) => r.token),
        [token(29)],
      );
      assert.equal((await store.search({ statusCode: 404, method: 'post' })).reports.length, 5);
      await store.write(
        encoded([report('abcdef', { time: T0 + 100, url: 'https://shop.example/api/orders/12/items' })]),
      );
      assert.deepEqual(
        (await store.search({ url: '/orders/12/' })).reports.map((r) => r.token),
        ['abcdef', token(12)],
      );
    } finally {
      await store.close();
    }
  });

  it('a large store serves while its indexes are built in the background, and searches find the same throughout', async () => {
    const file = version3Store(200_000);
    const store = sqliteStore(file);
    const started = performance.now();
    await store.open();
    try {
      const opened = performance.now() - started;
      assert.ok(
        indexing(file),
        `the trigram index is still being built once the store is open (${Math.round(opened)} ms)`,
      );
      const expected = [token(123_456)];
      assert.deepEqual(
        (await store.search({ url: '/orders/123456/' })).reports.map((r) => r.token),
        expected,
      );
      await store.write(encoded([report('abcdef', { time: T0 + 300_000, url: urlOf(123_456) })]));
      assert.deepEqual(
        (await store.search({ url: '/orders/123456/' })).reports.map((r) => r.token),
        ['abcdef', ...expected],
      );
      await until(() => !indexing(file), 'indexed');
      assert.deepEqual(
        (await store.search({ url: '/orders/123456/' })).reports.map((r) => r.token),
        ['abcdef', ...expected],
      );
      assert.equal(await store.count(), 200_001);
    } finally {
      await store.close();
    }
  });
});

describe('the trigram index follows the reports through retention', () => {
  it('holds exactly the stored reports after writes that keep N, purges and a clear', async () => {
    const file = newFile();
    const store = sqliteStore(file);
    await store.open();
    const indexed = () =>
      inFile(
        file,
        (db) =>
          db
            .prepare(`SELECT count(*) FROM reports_url_search WHERE reports_url_search MATCH '"abc"'`)
            .pluck()
            .get() as number,
      );
    try {
      const batch = (from: number, n: number) =>
        encoded(
          Array.from({ length: n }, (_, i) =>
            report(token(from + i), { time: T0 + from + i, url: `https://x/abc/${from + i}` }),
          ),
        );
      await store.write(batch(0, 50));
      // Deletes reports of the tail, not indexed yet, unless the write thread had a pause between the two.
      await store.write(batch(50, 50), 60);
      await until(() => tailOf(file) === 0, 'the tail indexed', 10_000);
      assert.equal(indexed(), 60);
      checkTrigramTables(file);
      assert.equal(await store.purge({ maxReports: 25, maxAgeMs: YEAR_MS }, { now: T0 }), 35);
      assert.equal(indexed(), 25);
      assert.equal((await store.search({ url: 'abc/' })).reports.length, 25);
      await store.clear();
      assert.equal(indexed(), 0);
      await store.write(batch(100, 10));
      await until(() => tailOf(file) === 0, 'the tail indexed after a clear', 10_000);
      assert.equal(indexed(), 10);
      checkTrigramTables(file);
    } finally {
      await store.close();
    }
  });
});

describe('a long retention run keeps indexing what is written meanwhile', () => {
  it('the tail stays within a few chunks while a purge deletes and a writer writes', async () => {
    const file = newFile();
    const store = sqliteStore(file);
    await store.open();
    const batch = (from: number, n: number) =>
      encoded(
        Array.from({ length: n }, (_, i) =>
          report(token(from + i), { time: T0 + from + i, url: `https://x/${from + i}` }),
        ),
      );
    try {
      for (let from = 0; from < 60_000; from += 5000) await store.write(batch(from, 5000));
      await until(() => tailOf(file) === 0, 'the first reports indexed', 60_000);
      const purging = store.purge({ maxReports: 1000, maxAgeMs: YEAR_MS }, { now: T0 });
      let purged = false;
      void purging.finally(() => (purged = true));
      let longest = 0;
      let written = 0;
      for (; !purged && written < 60_000; written += 1000) {
        await store.write(batch(100_000 + written, 1000));
        longest = Math.max(longest, tailOf(file));
      }
      await purging;
      assert.ok(written >= 20_000, `the writer wrote ${written} reports during the purge: too few to tell`);
      // Without the tail's turns it held every report written during the run.
      assert.ok(longest <= 12_000, `the tail reached ${longest} reports while ${written} were written`);
      // The purge answers once the tail is down to less than a chunk: a batch written after its last turn,
      // as the writer leaves one when the purge ends first, is indexed at the next pause. FTS5's check
      // counts a report not indexed yet as damage, so it waits for that pause.
      await store.write(batch(100_000 + written, 1000));
      await until(() => tailOf(file) === 0, 'the tail indexed after the purge', 10_000);
      checkTrigramTables(file);
    } finally {
      await store.close();
    }
  });
});

describe('a report is found by part of its URL or IP as soon as it is stored, before the trigram tables have it', () => {
  it('searches read the tail of reports not indexed yet, newest first, then the trigram tables', async () => {
    const file = newFile();
    const store = sqliteStore(file);
    await store.open();
    try {
      await store.write(
        encoded(
          Array.from({ length: 20 }, (_, i) =>
            report(token(i), { time: T0 + i, url: `https://x/fresh/${i}`, ip: `192.0.2.${i}` }),
          ),
        ),
      );
      await until(() => tailOf(file) === 0, 'the first reports indexed', 10_000);
      // Written as another process on the file writes: stored, committed, in the tail until a pause.
      const db = openSqlite(file);
      try {
        const insert = db.prepare(
          "INSERT INTO reports (token, time, method, url, status, ip, duration, data) VALUES (?, ?, 'GET', ?, 404, ?, 1, '{}')",
        );
        db.transaction(() => {
          insert.run('aaaa01', T0 + 100, 'https://x/fresh/100', '192.0.2.100');
          insert.run('aaaa02', T0 + 101, 'https://x/fresh/101', '198.51.100.7');
        })();
      } finally {
        db.close();
      }
      assert.equal(tailOf(file), 2, 'the two reports are not indexed');
      assert.deepEqual(
        (await store.search({ url: 'fresh/100' })).reports.map((r) => r.token),
        ['aaaa01'],
      );
      assert.deepEqual(
        (await store.search({ ip: '51.100.7' })).reports.map((r) => r.token),
        ['aaaa02'],
      );
      assert.deepEqual(
        (await store.search({ ip: '192.0.2.10' })).reports.map((r) => r.token),
        ['aaaa01', token(10)],
      );
      assert.deepEqual(
        (await store.search({ url: 'x/fresh/1', limit: 3 })).reports.map((r) => r.token),
        ['aaaa02', 'aaaa01', token(19)],
      );
      assert.deepEqual(
        (await store.search({ url: 'x/fresh/1', limit: 1 })).reports.map((r) => r.token),
        ['aaaa02'],
      );
      assert.deepEqual(
        (await store.search({ url: 'fresh/', statusCode: 404, ip: '192.0.2.1' })).reports
          .map((r) => r.token)
          .slice(0, 2),
        ['aaaa01', token(19)],
      );
      // The next batch's pause indexes them all; the answers stay the same.
      await store.write(encoded([report('bbbb01', { time: T0 + 200, url: 'https://x/other', ip: '203.0.113.1' })]));
      assert.deepEqual(
        (await store.search({ url: 'fresh/100' })).reports.map((r) => r.token),
        ['aaaa01'],
      );
      await until(() => tailOf(file) === 0, 'the tail indexed', 10_000);
      assert.deepEqual(
        (await store.search({ url: 'fresh/100' })).reports.map((r) => r.token),
        ['aaaa01'],
      );
      assert.deepEqual(
        (await store.search({ url: 'x/fresh/1', limit: 3 })).reports.map((r) => r.token),
        ['aaaa02', 'aaaa01', token(19)],
      );
      checkTrigramTables(file);
    } finally {
      await store.close();
    }
  });
});

/** Enough reports that reading them all, as a search by two characters does, takes the previous version at least 300 ms. */
describe('a search with a budget stops between two reports and says where to go on', () => {
  it('pages through the whole store to the reports a search without a budget finds, and no other', async () => {
    // 20 000 reports, the IP part in every 256th; the same with a part of two characters,
    // which no trigram answers and which is read in windows of ids (the first window's edge,
    // id 15 904 = 20 000 - 4096, holds `.31.`).
    const file = version3Store(20_000);
    const store = sqliteStore(file);
    await store.open();
    try {
      await until(() => !indexing(file), 'indexed', 30_000);
      for (const filters of [
        { url: '/orders/', ip: '.31.', limit: 1000 },
        { url: '/1', ip: '31', limit: 1000 },
      ]) {
        const whole = (await store.search(filters)).reports.map((r) => r.token);
        assert.ok(whole.length > 20 && whole.includes(token(15_903)), `${whole.length} reports match`);
        // A budget of 0 ms: each page stops after its first report, or its first window.
        const paged: string[] = [];
        let pages = 0;
        let before: number | undefined;
        do {
          const page = await store.search({ ...filters, budgetMs: 0, before });
          paged.push(...page.reports.map((r) => r.token));
          before = page.continueBelow;
          pages++;
          assert.ok(
            pages < 1000,
            `the pages end: ${JSON.stringify(filters)} ${paged.length} of ${whole.length}, before ${before}`,
          );
        } while (before !== undefined);
        assert.ok(pages >= 3, `${pages} pages`);
        assert.deepEqual(paged, whole, JSON.stringify(filters));
      }
      // A page that found its limit within its budget does not go on.
      const first = await store.search({ url: '/orders/', ip: '.31.', limit: 2, budgetMs: 60_000 });
      assert.deepEqual([first.reports.length, first.continueBelow], [2, undefined]);
    } finally {
      await store.close();
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it('exact filters no report meets together, and a time range, read at most a window of reports a step', async () => {
    // Every GET answered 200 and every POST 404: each filter alone is met by half the reports.
    const file = newFile();
    const store = sqliteStore(file);
    await store.open();
    try {
      for (let from = 0; from < 20_000; from += 5000)
        await store.write(
          encoded(
            Array.from({ length: 5000 }, (_, i) => {
              const n = from + i;
              return report(token(n), { time: T0 + n, method: n % 2 ? 'POST' : 'GET', status: n % 2 ? 404 : 200 });
            }),
          ),
        );
      for (const filters of [
        { statusCode: 200, method: 'POST' },
        { method: 'GET', statusCode: 404 },
        { statusCode: 200, method: 'POST', start: T0, end: T0 + 1_000_000 },
        { method: 'GET', statusCode: 404, start: T0 + 10 },
      ]) {
        const whole = (await store.search(filters)).reports.map((r) => r.token);
        const paged: string[] = [];
        let pages = 0;
        let before: number | undefined;
        do {
          const page = await store.search({ ...filters, budgetMs: 0, before });
          paged.push(...page.reports.map((r) => r.token));
          assert.ok(page.continueBelow === undefined || page.continueBelow < (before ?? Number.POSITIVE_INFINITY));
          before = page.continueBelow;
          pages++;
        } while (before !== undefined && pages < 100);
        assert.deepEqual([paged, whole], [[], []], JSON.stringify(filters));
        // Each filter alone holds 10 000 reports: read a window a step, they take 3 pages.
        assert.ok(pages >= 10_000 / WINDOW, `${JSON.stringify(filters)}: ${pages} pages`);
      }
      // A narrow time range is read from the time index, however old: at once.
      const narrow = await store.search({ start: T0 + 100, end: T0 + 104, statusCode: 200, budgetMs: 0 });
      assert.deepEqual(
        [narrow.reports.map((r) => r.token), narrow.continueBelow],
        [[104, 102, 100].map(token), undefined],
      );
    } finally {
      await store.close();
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it('a part every report holds, with a filter no report meets, reads at most a window of reports a step', async () => {
    // 20 000 reports in the trigram tables, then 6 000 in the tail, written as another process
    // writes: the lookup and the tail each read every report and keep none.
    const file = version3Store(20_000);
    const store = sqliteStore(file);
    await store.open();
    try {
      await until(() => !indexing(file), 'indexed', 30_000);
      const db = openSqlite(file);
      try {
        const insert = db.prepare(
          "INSERT INTO reports (token, time, method, url, status, ip, duration, data) VALUES (?, ?, 'GET', ?, 200, ?, 1, '{}')",
        );
        db.transaction(() => {
          for (let n = 20_000; n < 26_000; n++) insert.run(token(n), T0 + n, urlOf(n), `10.0.${n % 256}.1`);
        })();
      } finally {
        db.close();
      }
      assert.ok(tailOf(file) >= 6000, 'the tail holds the reports written last');
      const newest = 26_000;
      for (const filters of [
        { url: '/orders/', statusCode: 599 },
        { url: 'shop.example', method: 'DELETE' },
        { ip: '10.0.', start: T0 + 1_000_000 },
        { url: '/orders/', ip: '192.168.' },
      ]) {
        assert.deepEqual((await store.search(filters)).reports, [], JSON.stringify(filters));
        // Below the tail: the tail is read first, a window of ids a step.
        for (const before of [newest + 1, 20_001]) {
          const page = await store.search({ ...filters, budgetMs: 0, before });
          assert.deepEqual(page.reports, []);
          assert.ok(
            page.continueBelow !== undefined && page.continueBelow >= before - WINDOW,
            `${JSON.stringify(filters)} below ${before}: one step read on to ${page.continueBelow}`,
          );
        }
      }
    } finally {
      await store.close();
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });
});

const STORE_SIZE = 300_000;

/** A VAR_DIR whose store holds STORE_SIZE reports of about 2 KB, filled once for the tests that need it. */
let largeStore: Promise<string> | undefined;
const largeStoreDir = () => (largeStore ??= fillLargeStore());
after(async () => {
  if (largeStore) rmSync(await largeStore, { recursive: true, force: true });
});

async function fillLargeStore(): Promise<string> {
  const varDir = mkdtempSync(join(tmpdir(), 'vigil-search-service-'));
  const now = Date.now();
  const padding = 'x'.repeat(1500);
  const filler = storeOf(varDir);
  await filler.open();
  for (let from = 0; from < STORE_SIZE; from += 2000) {
    const batch: EncodedReport[] = Array.from({ length: 2000 }, (_, i) =>
      encodeReport(
        report(token(from + i), {
          time: now - STORE_SIZE + from + i,
          url: urlOf(from + i),
          collectors: { request: { body: padding } },
        }),
      ),
    );
    await filler.write(batch);
  }
  await filler.close();
  return varDir;
}

describe('the check of a large store at open runs off the thread that answers requests', () => {
  it('opening the store holds the event loop for a fraction of the check', async () => {
    const varDir = await largeStoreDir();
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    // The histogram starts with its first timer: a hold before that would go unseen.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Read whole, however large: the check is what is measured.
    const store = storeOf(varDir, {}, { wholeCheckUpTo: Number.POSITIVE_INFINITY });
    const started = performance.now();
    await store.open();
    const openMs = performance.now() - started;
    delay.disable();
    try {
      process.stdout.write(
        `# open of a store of ${STORE_SIZE} reports: ${openMs.toFixed(0)} ms, event loop held ${(delay.max / 1e6).toFixed(0)} ms at most\n`,
      );
      assert.equal(await store.count(), STORE_SIZE);
      const worst = delay.max / 1e6;
      // The check reads the whole file; on this thread it would hold the loop for all of the open.
      assert.ok(
        worst < Math.max(50, openMs / 3),
        `the event loop was held ${worst.toFixed(0)} ms during an open of ${openMs.toFixed(0)} ms`,
      );
    } finally {
      await store.close();
    }
  });
});

describe('a long search runs off the thread that answers requests', () => {
  it('requests sent during a search of a large store wait for nothing: the event loop stays free', async () => {
    const varDir = await largeStoreDir();
    const service = await startInProcess({ VAR_DIR: varDir, PROFILER_MAX_REPORTS: '1000000' });
    try {
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const requests: number[] = [];
      let searching = true;
      const alongside = (async () => {
        while (searching) {
          const sent = performance.now();
          await ask(service, { path: '/robots.txt' });
          requests.push(performance.now() - sent);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = performance.now();
      // Two characters: no trigram answers it, every report is read, newest first, a page at a
      // time: each page reads for its budget and links to the next (Link: rel="next").
      const found: unknown[] = [];
      let pages = 0;
      for (let path: string | undefined = '/_profiler/search?url=zq'; path !== undefined; pages++) {
        const page = await ask(service, { path, headers: { accept: 'application/json' } });
        assert.equal(page.status, 200);
        found.push(...(JSON.parse(page.body) as unknown[]));
        path = /^<([^>]+)>; rel="next"$/.exec(String(page.headers.link ?? ''))?.[1];
      }
      const searchMs = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 50));
      delay.disable();
      searching = false;
      await alongside;
      process.stdout.write(
        `# search of ${STORE_SIZE} reports: ${searchMs.toFixed(0)} ms in ${pages} pages, event loop held ${(delay.max / 1e6).toFixed(0)} ms at most (${delay.count} samples), requests up to ${Math.max(...requests).toFixed(0)} ms (${requests.length})\n`,
      );
      assert.deepEqual(found, []);
      assert.ok(pages > 1, `${pages} pages`);
      // The page says so, and links where the JSON's Link header does.
      const page = await ask(service, { path: '/_profiler/search?url=zq' });
      const next = /^<([^>]+)>; rel="next"$/.exec(String(page.headers.link))?.[1];
      assert.match(next ?? '', /^\/_profiler\/search\?url=zq&before=\d+$/);
      assert.ok(
        page.body.includes(`older reports are not searched yet. <a href="${next!.replace('&', '&amp;')}" rel="next">`),
        page.body,
      );
      const worst = delay.max / 1e6;
      // A search on this thread holds it for all of the search. On a loaded machine the
      // scheduler alone can hold a thread some tens of milliseconds: a third of the search is allowed then.
      assert.ok(
        worst < Math.max(50, searchMs / 3),
        `the event loop was held ${worst.toFixed(0)} ms during a search of ${searchMs.toFixed(0)} ms; requests took up to ${Math.max(...requests).toFixed(0)} ms`,
      );
    } finally {
      await service.stop();
    }
  });
});
