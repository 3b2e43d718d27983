/** The embedded store: the report store contract, and what is SQLite's own: the file's layout, its older layouts, its disk use. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TokenPermutation } from '../../src/profiler/tokens/token-permutation.js';
import type { ReportStore } from '../../src/profiler/storage/report-store.js';
import { encoded, report, T0 } from '../support/reports.js';
import { sqliteStore, storedTokens } from '../support/stores.js';
import { reportStoreContract } from './store-contract.js';
import { openSqlite, type SqliteDatabase } from '../../src/profiler/storage/sqlite/sqlite-driver.js';

const newFile = (prefix = 'vigil-store-') => join(mkdtempSync(join(tmpdir(), prefix)), 'sub', 'profiler.sqlite');

reportStoreContract('the SQLite store', () => {
  const file = newFile();
  return { handle: () => sqliteStore(file) };
});

/** Reads the file directly, as a second party would. */
function inFile<T>(file: string, read: (db: SqliteDatabase) => T): T {
  const db = openSqlite(file);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

let store: ReportStore;
let file: string;

describe('the SQLite store keeps its file', () => {
  beforeEach(async () => {
    file = newFile();
    store = sqliteStore(file);
    await store.open();
  });
  afterEach(() => store.close());

  describe('the store touches the disk only when opened', () => {
    it('creates no file in its constructor, and the file (and its directory) on open', async () => {
      const later = newFile();
      const unopened = sqliteStore(later);
      assert.equal(existsSync(later), false);
      assert.equal(await unopened.exists(), false);
      assert.equal(unopened.location, later);
      await assert.rejects(unopened.count(), /the report store .* is not open/);
      await unopened.open();
      try {
        assert.equal(await unopened.exists(), true);
        assert.equal(await unopened.count(), 0);
      } finally {
        await unopened.close();
      }
    });
  });

  describe('the token counter and its key live in the file', () => {
    it('draws a 32-byte key when the file is created, and leases the permutation of the counter under it', async () => {
      const tokens = await store.leaseTokens(5);
      const { key, next } = inFile(
        file,
        (db) => db.prepare('SELECT key, next FROM token_counter').get() as { key: Uint8Array; next: number },
      );
      assert.equal(key.length, 32);
      assert.equal(next, 5);
      const permutation = new TokenPermutation(key);
      assert.deepEqual(
        tokens,
        [0, 1, 2, 3, 4].map((counter) => permutation.token(counter)),
      );
    });

    it('skips, when the counter comes back round after 2^24, the tokens that stored reports still hold', async () => {
      const first = await store.leaseTokens(10);
      await store.write(encoded([report(first[2]!), report(first[7]!)]));
      // 2^24 tokens later the counter gives the same tokens again.
      inFile(file, (db) => db.prepare('UPDATE token_counter SET next = ?').run(2 ** 24));
      const again = await store.leaseTokens(10);
      assert.deepEqual(
        again,
        first.filter((_, i) => i !== 2 && i !== 7),
      );
    });

    it('creates a new key when the counter row is gone, still skipping stored tokens', async () => {
      const first = await store.leaseTokens(3);
      await store.write(encoded(first.map((token) => report(token))));
      inFile(file, (db) => db.exec('DELETE FROM token_counter'));
      const after = await store.leaseTokens(4096);
      assert.ok(after.every((token) => !first.includes(token)));
      assert.equal(
        inFile(file, (db) => db.prepare('SELECT count(*) FROM token_counter').pluck().get()),
        1,
      );
    });
  });

  describe('a stack trace shared by many reports is stored once', () => {
    const trace = [
      {
        function: 'noRouteFound',
        file: '/srv/src/routing/unmatched.ts',
        line: 45,
        column: 10,
        own: true,
        excerpt: [{ number: 45, text: 'throw' }],
      },
    ];
    const failing = (token: string) =>
      report(token, { collectors: { exception: { class: 'NotFoundHttpError', message: 'No route', trace } } });
    const traceRows = (file: string) => {
      const db = openSqlite(file, { readonly: true });
      try {
        return db.prepare('SELECT count(*) FROM traces').pluck().get() as number;
      } finally {
        db.close();
      }
    };

    it('reads every report back with its trace, from one stored copy', async () => {
      await store.write(encoded([failing('00000a'), failing('00000b')]));
      await store.write(encoded([failing('00000c')]));
      for (const token of ['00000a', '00000b', '00000c'])
        assert.deepEqual((await store.read(token))!.collectors.exception, {
          class: 'NotFoundHttpError',
          message: 'No route',
          trace,
        });
      assert.equal(traceRows(file), 1);
    });

    it('deletes a trace with the last report that used it', async () => {
      await store.write(encoded([failing('00000a'), report('00000b', { time: T0 + 1 })]));
      await store.purge({ maxReports: 1, maxAgeMs: 365 * 86_400_000 }, { now: T0 });
      assert.equal(traceRows(file), 0);
      await store.write(encoded([failing('00000c')]));
      assert.deepEqual((await store.read('00000c'))!.collectors.exception, {
        class: 'NotFoundHttpError',
        message: 'No route',
        trace,
      });
    });
  });

  describe('a store written by version 1 (rows in token order) is moved to the current layout on open', () => {
    it('keeps every report, readable and in time order', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'vigil-v1-')), 'profiler.sqlite');
      const v1 = openSqlite(file);
      v1.exec(`CREATE TABLE reports (token TEXT PRIMARY KEY, time INTEGER NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
        status INTEGER NOT NULL, ip TEXT NOT NULL, duration REAL NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
        CREATE INDEX reports_by_time ON reports (time);`);
      const insert = v1.prepare('INSERT INTO reports VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      insert.run(
        'ffff01',
        T0 + 1,
        'GET',
        'https://localhost/b',
        404,
        '::1',
        2,
        JSON.stringify({ exception: { class: 'E', trace: [{ line: 1 }] } }),
      );
      insert.run(
        '000002',
        T0,
        'GET',
        'https://localhost/a',
        200,
        '::1',
        1,
        JSON.stringify({ request: { method: 'GET' } }),
      );
      v1.close();
      const migrated = sqliteStore(file);
      await migrated.open();
      try {
        assert.deepEqual(
          (await migrated.search({})).reports.map((r) => r.token),
          ['ffff01', '000002'],
        );
        assert.deepEqual((await migrated.read('ffff01'))!.collectors, {
          exception: { class: 'E', trace: [{ line: 1 }] },
        });
        await migrated.write(encoded([report('000003', { time: T0 + 2 })]));
        assert.equal(await migrated.count(), 3);
      } finally {
        await migrated.close();
      }
    });
  });

  describe('a store written by version 2 (tokens drawn at random, no counter) gets its counter on open', () => {
    it('keeps every report, and leases tokens from then on', async () => {
      await store.write(encoded([report('abcdef'), report('123456', { time: T0 + 1 })]));
      await store.close();
      inFile(file, (db) => db.exec('DROP TABLE token_counter; DROP TABLE retention_lease; PRAGMA user_version = 2;'));
      store = sqliteStore(file);
      await store.open();
      assert.deepEqual(await storedTokens(store), ['123456', 'abcdef']);
      assert.equal(
        inFile(file, (db) => db.pragma('user_version', { simple: true })),
        6,
      );
      const tokens = await store.leaseTokens(1000);
      assert.ok(tokens.length > 0 && !tokens.includes('abcdef') && !tokens.includes('123456'));
    });
  });

  describe('a store written by version 5 (no facts beside the summary) gets their columns on open', () => {
    it('keeps every report, its facts null, and keeps the facts of the reports written since', async () => {
      await store.write(encoded([report('abcdef')]));
      await store.close();
      const facts = ['route', 'exception', 'fingerprint', 'statements', 'calls', 'asset'];
      inFile(file, (db) =>
        db.exec(
          `${['route', 'exception', 'fingerprint', 'id_with_exception'].map((name) => `DROP INDEX IF EXISTS reports_by_${name};`).join('')}
          ${facts.map((column) => `ALTER TABLE reports DROP COLUMN ${column};`).join('')} PRAGMA user_version = 5;`,
        ),
      );
      store = sqliteStore(file);
      await store.open();
      await store.write(encoded([report('123456', { time: T0 + 1, url: 'https://localhost/favicon.ico' })]));
      assert.equal(
        inFile(file, (db) => db.pragma('user_version', { simple: true })),
        6,
      );
      const [favicon, old] = (await store.search({})).reports;
      assert.deepEqual([old!.token, old!.route, old!.exception, old!.statements], ['abcdef', null, null, null]);
      assert.equal(favicon!.token, '123456');
      assert.deepEqual(
        (await store.search({ hideAssets: true })).reports.map((r) => r.token),
        ['abcdef'],
      );
    });
  });

  describe('the store gives disk space back after retention', () => {
    const bytes = (file: string) => (existsSync(file) ? statSync(file).size : 0);

    it('empties the WAL after a retention run and returns the pages of deleted reports', async () => {
      const big = (i: number) =>
        report(i.toString(16).padStart(6, '0'), {
          time: T0 + i,
          collectors: { request: { body: `${i} `.repeat(1500) } },
        });
      for (let i = 0; i < 2000; i += 100) await store.write(encoded(Array.from({ length: 100 }, (_, j) => big(i + j))));
      const written = bytes(file) + bytes(`${file}-wal`);
      await store.purge({ maxReports: 10, maxAgeMs: 365 * 86_400_000 }, { now: T0 });
      assert.equal(bytes(`${file}-wal`), 0, 'the WAL is checkpointed and truncated');
      const kept = bytes(file);
      // 10 reports of about 8 KB each, in a file that held 2000 of them.
      assert.ok(kept < 512 * 1024, `the file keeps ${kept} bytes after ${written} were written`);
      await store.clear();
      assert.equal(bytes(`${file}-wal`), 0);
      // Up to 1 MiB of free pages is kept for the next reports (storage/sqlite-disk.ts).
      assert.ok(bytes(file) <= 1024 * 1024 + 64 * 1024, `an empty store keeps ${bytes(file)} bytes`);
    });
  });

  describe('a write given the number of reports to keep deletes the oldest in the same transaction', () => {
    const sized = (i: number) =>
      report(i.toString(16).padStart(6, '0'), {
        time: T0 + i,
        collectors: { request: { body: String(i).padStart(5000, '.') } },
      });
    const batch = (from: number, length: number) => encoded(Array.from({ length }, (_, j) => sized(from + j)));
    const tokensOf = (from: number, length: number) =>
      Array.from({ length }, (_, j) => (from + j).toString(16).padStart(6, '0'));
    const pageCount = () => inFile(file, (db) => db.pragma('page_count', { simple: true }) as number);

    it('never holds more than keep, counts the deleted, and the new reports take their pages', async () => {
      assert.equal((await store.write(batch(0, 50), 100)).deleted, 0);
      assert.equal((await store.write(batch(50, 50), 100)).deleted, 0);
      const filled = pageCount();
      const through = async (from: number, to: number) => {
        for (; from < to; from += 50) {
          assert.equal((await store.write(batch(from, 50), 100)).deleted, 50);
          assert.deepEqual(await storedTokens(store), tokensOf(from - 50, 100), 'the oldest go');
        }
      };
      // The trigram tables keep a few segments of deletions until FTS5 merges them: a bound, reached early.
      await through(100, 1100);
      const settled = pageCount();
      assert.ok(settled <= filled + 32, `${settled} pages, ${filled} after the first 100 reports`);
      // 1000 more reports went through a file sized for 100: it has not grown for them.
      await through(1100, 2100);
      assert.ok(pageCount() <= settled + 4, `${pageCount()} pages, ${settled} after 1000 reports`);
    });

    it('keeps the newest of a batch larger than keep by itself', async () => {
      assert.equal((await store.write(batch(0, 12), 5)).deleted, 7);
      assert.deepEqual(await storedTokens(store), tokensOf(7, 5));
    });

    it('counts again what another connection deleted, instead of deleting more than needed', async () => {
      await store.write(batch(0, 100), 100);
      // The command line's purge, say: its own connection to the same file.
      const other = sqliteStore(file);
      await other.open();
      try {
        await other.purge({ maxReports: 50, maxAgeMs: 365 * 86_400_000 }, { now: T0 });
      } finally {
        await other.close();
      }
      assert.equal((await store.write(batch(100, 10), 100)).deleted, 0);
      assert.equal(await store.count(), 60);
    });

    it('leaves the count alone without keep', async () => {
      await store.write(batch(0, 12), 5);
      const outcome = await store.write(batch(12, 3));
      assert.equal(outcome.deleted, undefined);
      assert.equal(await store.count(), 8);
    });
  });
});
