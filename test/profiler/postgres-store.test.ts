/**
 * Issue 12, the shared store: the report store contract on PostgreSQL, and what is
 * PostgreSQL's own: the versioned layout created once by instances starting together, the
 * counter and its key in the database, batches in one statement, the indexes the search
 * uses, and a server that is down or slow.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, afterEach, describe, it } from 'node:test';
import { TokenPermutation } from '../../src/profiler/tokens/token-permutation.js';
import {
  ReportStoreError,
  ReportStoreUnavailableError,
  type ReportStore,
} from '../../src/profiler/storage/report-store.js';
import { PG_PASSWORD, startPostgres, type PostgresServer } from '../support/postgres.js';
import { encoded, report, T0 } from '../support/reports.js';
import { postgresStore, storedTokens } from '../support/stores.js';
import { reportStoreContract } from './store-contract.js';

let server: PostgresServer;
before(async () => {
  server = await startPostgres();
});
after(() => server?.close());

reportStoreContract('the PostgreSQL store', async () => {
  const dsn = await server.database('contract');
  return { handle: () => postgresStore(dsn) };
});

const YEAR_MS = 365 * 86_400_000;
const PASSWORD_PARTS = [PG_PASSWORD, encodeURIComponent(PG_PASSWORD)];
const assertNoPassword = (text: string) => {
  for (const part of PASSWORD_PARTS) assert.ok(!text.includes(part), `the password shows in: ${text}`);
};

describe('the PostgreSQL store keeps its database', () => {
  let dsn: string;
  let store: ReportStore;
  const rows = <T = Record<string, unknown>>(sql: string, values?: unknown[]) => server.query<T>(dsn, sql, values);

  beforeEach(async () => {
    dsn = await server.database('own');
    store = postgresStore(dsn);
    await store.open();
  });
  afterEach(() => store.close());

  describe('its layout is created at open, versioned, once however many instances start together', () => {
    it('names the store without its password, touches nothing before open, then creates version 3', async () => {
      const fresh = await server.database('fresh');
      const unopened = postgresStore(fresh);
      assert.match(unopened.location, /^postgres:\/\/vigil@127\.0\.0\.1:\d+\/fresh_\w+$/);
      assertNoPassword(unopened.location);
      await assert.rejects(unopened.count(), /the report store .* is not open/);
      assert.equal(await unopened.exists(), false);
      await assert.rejects(
        unopened.leaseTokens(1),
        /the report store .* is not open/,
        'asking whether it exists opens nothing',
      );
      assert.equal(await unopened.exists(), false);
      await unopened.open();
      try {
        assert.equal(await unopened.exists(), true);
        assert.deepEqual(await server.query(fresh, 'SELECT version FROM vigil_schema_version ORDER BY version'), [
          { version: 1 },
          { version: 2 },
          { version: 3 },
        ]);
        assert.equal(await unopened.count(), 0);
      } finally {
        await unopened.close();
      }
    });

    it('is created once, with one key, by eight handles opening a new database at the same time', async () => {
      const fresh = await server.database('together');
      const handles = Array.from({ length: 8 }, () => postgresStore(fresh));
      try {
        await Promise.all(handles.map((handle) => handle.open()));
        const leased = await Promise.all(handles.map((handle) => handle.leaseTokens(100)));
        assert.equal(new Set(leased.flat()).size, 800);
        assert.deepEqual(await server.query(fresh, 'SELECT version FROM vigil_schema_version ORDER BY version'), [
          { version: 1 },
          { version: 2 },
          { version: 3 },
        ]);
        assert.deepEqual(await server.query(fresh, 'SELECT count(*)::int AS n FROM vigil_token_counter'), [{ n: 1 }]);
      } finally {
        await Promise.all(handles.map((handle) => handle.close()));
      }
    });

    it('leaves a store at its version alone when opened again', async () => {
      await store.write(encoded([report('abcdef')]));
      const { key } = (await rows<{ key: Buffer }>('SELECT key FROM vigil_token_counter'))[0]!;
      const again = postgresStore(dsn);
      await again.open();
      try {
        assert.deepEqual(await storedTokens(again), ['abcdef']);
        assert.ok((await rows<{ key: Buffer }>('SELECT key FROM vigil_token_counter'))[0]!.key.equals(key));
        assert.deepEqual(await rows('SELECT version FROM vigil_schema_version ORDER BY version'), [
          { version: 1 },
          { version: 2 },
          { version: 3 },
        ]);
      } finally {
        await again.close();
      }
    });
  });

  describe('the token counter and its key live in the database', () => {
    it('draws a 32-byte key when the store is created, and leases the permutation of the counter under it', async () => {
      const tokens = await store.leaseTokens(5);
      const { key, next } = (
        await rows<{ key: Buffer; next: string }>('SELECT key, next FROM vigil_token_counter')
      )[0]!;
      assert.equal(key.length, 32);
      assert.equal(Number(next), 5);
      const permutation = new TokenPermutation(key);
      assert.deepEqual(
        tokens,
        [0, 1, 2, 3, 4].map((counter) => permutation.token(counter)),
      );
    });

    it('skips, when the counter comes back round after 2^24, the tokens that stored reports still hold', async () => {
      const first = await store.leaseTokens(10);
      await store.write(encoded([report(first[2]!), report(first[7]!)]));
      await rows('UPDATE vigil_token_counter SET next = $1', [2 ** 24]);
      const again = await store.leaseTokens(10);
      assert.deepEqual(
        again,
        first.filter((_, i) => i !== 2 && i !== 7),
      );
    });

    it('creates a new key when the counter row is gone, still skipping stored tokens', async () => {
      const first = await store.leaseTokens(3);
      await store.write(encoded(first.map((token) => report(token))));
      await rows('DELETE FROM vigil_token_counter');
      const after = await store.leaseTokens(4096);
      assert.ok(after.every((token) => !first.includes(token)));
      assert.deepEqual(await rows('SELECT count(*)::int AS n FROM vigil_token_counter'), [{ n: 1 }]);
    });
  });

  describe('a batch is one INSERT, and a stack trace shared by many reports is stored once', () => {
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
    const failing = (token: string, time = T0) =>
      report(token, { time, collectors: { exception: { class: 'NotFoundHttpError', message: 'No route', trace } } });
    const traceRows = async () => (await rows<{ n: number }>('SELECT count(*)::int AS n FROM vigil_traces'))[0]!.n;

    it('writes 200 reports with one INSERT statement', async () => {
      const name = new URL(dsn).pathname.slice(1);
      await rows(`ALTER DATABASE "${name}" SET log_statement = 'all'`);
      const logged = postgresStore(dsn);
      await logged.open();
      try {
        const before = server.log().length;
        await logged.write(
          encoded(Array.from({ length: 200 }, (_, i) => report(i.toString(16).padStart(6, '0'), { time: T0 + i }))),
        );
        const statements = server
          .log()
          .slice(before)
          .split('\n')
          .filter((line) => line.includes('INSERT INTO vigil_reports'));
        assert.equal(statements.length, 1, statements.join('\n'));
        assert.equal(await logged.count(), 200);
      } finally {
        await logged.close();
        await rows(`ALTER DATABASE "${name}" RESET log_statement`);
      }
    });

    it('reads every report back with its trace, from one stored copy', async () => {
      await store.write(encoded([failing('00000a'), failing('00000b')]));
      await store.write(encoded([failing('00000c')]));
      for (const token of ['00000a', '00000b', '00000c'])
        assert.deepEqual((await store.read(token))!.collectors.exception, {
          class: 'NotFoundHttpError',
          message: 'No route',
          trace,
        });
      assert.equal(await traceRows(), 1);
    });

    it('deletes a trace with the last report that used it', async () => {
      await store.write(encoded([failing('00000a'), report('00000b', { time: T0 + 1 })]));
      await store.purge({ maxReports: 1, maxAgeMs: YEAR_MS }, { now: T0 });
      assert.equal(await traceRows(), 0);
      await store.write(encoded([failing('00000c')]));
      assert.deepEqual((await store.read('00000c'))!.collectors.exception, {
        class: 'NotFoundHttpError',
        message: 'No route',
        trace,
      });
    });
  });

  describe('a report the database cannot take costs itself only', () => {
    it('gives back a report with a NUL character in its URL as failed, and stores the others', async () => {
      const outcome = await store.write(
        encoded([report('00000a'), report('00000b', { url: 'https://localhost/a\u0000b' }), report('00000c')]),
      );
      assert.deepEqual(outcome.rejected, []);
      assert.deepEqual(
        outcome.failed.map((failure) => failure.token),
        ['00000b'],
      );
      assert.match(outcome.failed[0]!.error.message, /0x00/);
      assert.deepEqual(await storedTokens(store), ['00000a', '00000c']);
      assert.equal(await store.count(), 2);
    });

    it('takes a batch written again after its commit was lost as stored, and still refuses another report under a stored token', async () => {
      const batch = encoded([report('00000a', { time: T0 + 1 }), report('00000b', { time: T0 + 2 })]);
      await store.write(batch);
      const again = await store.write([
        ...batch,
        ...encoded([report('00000a', { time: T0 + 1, url: 'https://localhost/other' })]),
      ]);
      assert.deepEqual(again.rejected, ['00000a'], 'only the other report is refused');
      assert.equal(await store.count(), 2);
      assert.equal((await store.read('00000a'))!.url, 'https://localhost:8443/robots.txt');
    });
  });

  describe('a write given the number of reports to keep deletes the oldest in the same transaction', () => {
    const batch = (from: number, length: number) =>
      encoded(
        Array.from({ length }, (_, j) => report((from + j).toString(16).padStart(6, '0'), { time: T0 + from + j })),
      );
    const tokensOf = (from: number, length: number) =>
      Array.from({ length }, (_, j) => (from + j).toString(16).padStart(6, '0'));

    it('never holds more than keep, and counts the deleted', async () => {
      assert.equal((await store.write(batch(0, 50), 100)).deleted, 0);
      assert.equal((await store.write(batch(50, 50), 100)).deleted, 0);
      for (let from = 100; from < 400; from += 50) {
        assert.equal((await store.write(batch(from, 50), 100)).deleted, 50);
        assert.deepEqual(await storedTokens(store), tokensOf(from - 50, 100), 'the oldest go');
      }
    });

    it('keeps the newest of a batch larger than keep by itself', async () => {
      assert.equal((await store.write(batch(0, 12), 5)).deleted, 7);
      assert.deepEqual(await storedTokens(store), tokensOf(7, 5));
    });

    it('keeps keep across handles writing at the same time, and shares one count', async () => {
      const handles = [store, postgresStore(dsn), postgresStore(dsn)];
      await Promise.all(handles.slice(1).map((handle) => handle.open()));
      try {
        await Promise.all(Array.from({ length: 30 }, (_, i) => handles[i % 3]!.write(batch(i * 20, 20), 100)));
        assert.equal(await store.count(), 100);
        assert.deepEqual(await rows('SELECT count(*)::int AS n FROM vigil_reports'), [{ n: 100 }]);
        await handles[1]!.purge({ maxReports: 50, maxAgeMs: YEAR_MS }, { now: T0 });
        assert.equal(await store.count(), 50, 'what another handle deleted is counted');
        assert.equal((await store.write(batch(1000, 10), 100)).deleted, 0);
      } finally {
        await Promise.all(handles.slice(1).map((handle) => handle.close()));
      }
    });

    it('leaves the count alone without keep', async () => {
      await store.write(batch(0, 12), 5);
      const outcome = await store.write(batch(12, 3));
      assert.equal(outcome.deleted, undefined);
      assert.equal(await store.count(), 8);
    });
  });

  describe('the search is answered from the indexes', () => {
    const plan = async (where: string) =>
      (await rows<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT token FROM vigil_reports r ${where}`))
        .map((line) => line['QUERY PLAN'])
        .join('\n');

    it('walks the primary key, or the status or method index, backwards for the newest first (arrival order), the token index for a prefix, the time index for a range', async () => {
      // Plans are read with sequential and bitmap scans priced out: the question is whether an index can serve without a sort.
      const name = new URL(dsn).pathname.slice(1);
      await rows(`ALTER DATABASE "${name}" SET enable_seqscan = off`);
      await rows(`ALTER DATABASE "${name}" SET enable_bitmapscan = off`);
      try {
        const newest = await plan("WHERE r.url LIKE '%items%' ORDER BY r.id DESC LIMIT 100");
        assert.match(newest, /Index Scan Backward using vigil_reports_pkey/);
        assert.doesNotMatch(newest, /Sort/);
        // The newest ids of a prefix from the token index alone, which carries them.
        assert.match(
          (
            await rows<{ 'QUERY PLAN': string }>(
              "EXPLAIN SELECT r.id FROM vigil_reports r WHERE r.token LIKE 'ab%' ORDER BY r.id DESC LIMIT 100",
            )
          )
            .map((line) => line['QUERY PLAN'])
            .join('\n'),
          /Index Only Scan using vigil_reports_by_token_with_id/,
        );
        assert.match(await plan('WHERE r.time >= 1 AND r.time <= 2'), /vigil_reports_by_time/);
        const byStatus = await plan('WHERE r.status = 404 ORDER BY r.id DESC LIMIT 100');
        assert.match(byStatus, /Index Scan Backward using vigil_reports_by_status/);
        assert.doesNotMatch(byStatus, /Sort/);
        assert.match(
          await plan("WHERE r.method = 'GET' ORDER BY r.id DESC LIMIT 100"),
          /Index Scan Backward using vigil_reports_by_method/,
        );
      } finally {
        await rows(`ALTER DATABASE "${name}" RESET enable_seqscan`);
        await rows(`ALTER DATABASE "${name}" RESET enable_bitmapscan`);
      }
    });

    it('answers the status and the method from a B-tree, and a part of the URL or IP from a trigram index, % and _ taken literally', async () => {
      const name = new URL(dsn).pathname.slice(1);
      await rows(`ALTER DATABASE "${name}" SET enable_seqscan = off`);
      try {
        assert.match(await plan('WHERE r.status = 404'), /vigil_reports_by_status/);
        assert.match(await plan("WHERE r.method = 'GET'"), /vigil_reports_by_method/);
        assert.match(
          await plan(String.raw`WHERE r.url LIKE '%100\%\_sure%'`),
          /Bitmap Index Scan on vigil_reports_by_url_part/,
        );
        assert.match(await plan("WHERE r.ip LIKE '%192.168%'"), /Bitmap Index Scan on vigil_reports_by_ip_part/);
      } finally {
        await rows(`ALTER DATABASE "${name}" RESET enable_seqscan`);
      }
    });
  });

  describe('a purge of many reports lets writers through between its chunks', () => {
    it('stores a batch written while a purge runs before the purge is done', async () => {
      const purging = postgresStore(dsn, { purgeChunk: 1000 });
      await purging.open();
      try {
        await rows(`INSERT INTO vigil_reports (token, time, method, url, status, ip, duration, data)
          SELECT lpad(to_hex(n), 6, '0'), ${T0} + n, 'GET', 'https://localhost/items/' || n, 404, '127.0.0.1', 1.5, '{}' FROM generate_series(1, 40000) AS n`);
        await rows('UPDATE vigil_report_count SET reports = 40000');
        const order: string[] = [];
        const purge = purging
          .purge({ maxReports: 1, maxAgeMs: YEAR_MS }, { now: T0 })
          .then((deleted) => (order.push('purge'), deleted));
        // The batch is sent once the purge holds the write lock.
        for (
          let waited = 0;
          (await rows("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 2 AND granted")).length === 0;
          waited += 5
        ) {
          assert.ok(waited < 10_000, 'the purge takes the write lock');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await store.write(encoded([report('fffff0', { time: T0 + 50_000 })])).then(() => order.push('write'));
        assert.equal(await purge, 40_000);
        assert.deepEqual(order, ['write', 'purge']);
        assert.deepEqual(await storedTokens(store), ['fffff0']);
        assert.equal(await store.count(), 1);
      } finally {
        await purging.close();
      }
    });
  });

  describe('a store without its search indexes gets them at open, and keeps serving while a large one builds them', () => {
    const SEARCH_INDEXES = [
      'vigil_reports_by_token_with_id',
      'vigil_reports_by_status',
      'vigil_reports_by_method',
      'vigil_reports_by_url_part',
      'vigil_reports_by_ip_part',
      'vigil_reports_by_route',
      'vigil_reports_by_exception',
      'vigil_reports_by_fingerprint',
      'vigil_reports_by_id_with_exception',
    ];
    const presentIndexes = async (target: string) =>
      (
        await server.query<{ name: string }>(
          target,
          "SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indisvalid AND c.relname LIKE 'vigil_reports_by_%'",
        )
      )
        .map((row) => row.name)
        .sort();
    /** A store as version 1 made it: the same tables without the facts, only the first indexes, `count` reports. */
    const previousStore = async (count: number) => {
      const target = await server.database('previous');
      const made = postgresStore(target);
      await made.open();
      await made.close();
      for (const index of SEARCH_INDEXES) await server.query(target, `DROP INDEX ${index}`);
      await server.query(target, 'CREATE UNIQUE INDEX vigil_reports_by_token ON vigil_reports (token)');
      await server.query(
        target,
        `ALTER TABLE vigil_reports ${['route', 'exception', 'fingerprint', 'statements', 'calls', 'asset'].map((c) => `DROP COLUMN ${c}`).join(', ')}`,
      );
      await server.query(target, 'DROP TABLE vigil_overview_minutes');
      await server.query(target, 'DELETE FROM vigil_schema_version WHERE version >= 2');
      await server.query(
        target,
        `INSERT INTO vigil_reports (token, time, method, url, status, ip, duration, data)
        SELECT lpad(to_hex(n), 6, '0'), ${T0} + n, 'GET', 'https://localhost/items/' || n, 404, '10.0.' || (n % 250) || '.1', 1.5, '{}' FROM generate_series(1, $1::int) AS n`,
        [count],
      );
      await server.query(target, 'UPDATE vigil_report_count SET reports = $1', [count]);
      return target;
    };

    it('builds them at open in a small store, keeping its reports', async () => {
      const target = await previousStore(500);
      assert.deepEqual(await presentIndexes(target), [
        'vigil_reports_by_time',
        'vigil_reports_by_token',
        'vigil_reports_by_trace',
      ]);
      const opened = postgresStore(target);
      await opened.open();
      try {
        assert.deepEqual(
          await presentIndexes(target),
          [...SEARCH_INDEXES, 'vigil_reports_by_time', 'vigil_reports_by_trace'].sort(),
          'the token index with the id stands in for the one without',
        );
        assert.equal(await opened.count(), 500);
        // Moved to version 3: its reports have no facts, and are no browser assets.
        assert.deepEqual(await server.query(target, 'SELECT max(version) AS v FROM vigil_schema_version'), [{ v: 3 }]);
        const [listed] = (await opened.search({ limit: 1, hideAssets: true, exception: undefined })).reports;
        assert.deepEqual([listed!.route, listed!.exception, listed!.statements], [null, null, null]);
        const found = (await opened.search({ url: '/items/49' })).reports.map((report) => report.token);
        assert.deepEqual(
          found,
          [
            '0001f3',
            '0001f2',
            '0001f1',
            '0001f0',
            '0001ef',
            '0001ee',
            '0001ed',
            '0001ec',
            '0001eb',
            '0001ea',
            '000031',
          ],
          '499 to 490, then 49',
        );
      } finally {
        await opened.close();
      }
    });

    it('serves a large store at once and builds them in the background, saying so', async () => {
      const target = await previousStore(30_000);
      const lines: string[] = [];
      const opened = postgresStore(target, { notify: (line) => lines.push(line) });
      await opened.open();
      try {
        assert.equal(
          (await opened.search({ statusCode: 404, limit: 1 })).reports[0]!.token,
          (30_000).toString(16).padStart(6, '0'),
        );
        await opened.write(encoded([report('fffff0', { time: T0 + 40_000 })]));
        const all = [...SEARCH_INDEXES, 'vigil_reports_by_time', 'vigil_reports_by_trace'].sort();
        for (let waited = 0; (await presentIndexes(target)).join() !== all.join(); waited += 100) {
          assert.ok(
            waited < 60_000,
            `the indexes are built within a minute: ${(await presentIndexes(target)).join(', ')}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(await opened.count(), 30_001);
        assert.match(lines.join('\n'), /is building its search indexes/);
        for (let waited = 0; !/has built its search indexes/.test(lines.join('\n')); waited += 50) {
          assert.ok(waited < 10_000, lines.join('\n'));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await opened.close();
      }
    });

    it('leaves no invalid index behind when a background build fails, and keeps the index the failed one replaces', async () => {
      // Two reports with one token: the unique index cannot be built.
      const target = await previousStore(30_000);
      await server.query(target, 'DROP INDEX vigil_reports_by_token');
      await server.query(
        target,
        `INSERT INTO vigil_reports (token, time, method, url, status, ip, duration, data) VALUES ('000001', ${T0}, 'GET', '/', 200, '::1', 1, '{}')`,
      );
      await server.query(target, 'CREATE INDEX vigil_reports_by_token ON vigil_reports (token)');
      const lines: string[] = [];
      const opened = postgresStore(target, { notify: (line) => lines.push(line) });
      await opened.open();
      try {
        for (let waited = 0; !/could not build its search indexes/.test(lines.join('\n')); waited += 50) {
          assert.ok(waited < 30_000, lines.join('\n'));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const indexes = await server.query<{ name: string }>(
          target,
          "SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'vigil_reports_by_token%'",
        );
        assert.deepEqual(
          indexes.map((row) => row.name),
          ['vigil_reports_by_token'],
        );
      } finally {
        await opened.close();
      }
    });

    it('says in one line when pg_trgm cannot be created, and searches a part of the URL or IP by a scan', async () => {
      const target = await server.database('plain');
      const role = `plain_${Math.random().toString(36).slice(2, 8)}`;
      await server.query(target, `CREATE ROLE ${role} LOGIN PASSWORD 'plain-pass'`);
      await server.query(target, `GRANT CREATE ON SCHEMA public TO ${role}`);
      const url = new URL(target);
      url.username = role;
      url.password = 'plain-pass';
      const lines: string[] = [];
      const opened = postgresStore(url.href, { notify: (line) => lines.push(line) });
      await opened.open();
      try {
        assert.equal(lines.length, 1, lines.join('\n'));
        assert.match(
          lines[0]!,
          /^The report store postgres:\/\/plain_\w+@127\.0\.0\.1:\d+\/plain_\w+ cannot create the pg_trgm extension \(.*permission denied.*\): searches by part of the URL or IP scan the reports$/,
        );
        await opened.write(
          encoded([
            report('00000a', { url: 'https://localhost/items/7', ip: '192.168.1.20' }),
            report('00000b', { time: T0 + 1 }),
          ]),
        );
        assert.deepEqual(
          (await opened.search({ url: 'items/7', ip: '168.1' })).reports.map((found) => found.token),
          ['00000a'],
        );
        assert.deepEqual(
          (await presentIndexes(target)).filter((name) => name.endsWith('_part')),
          [],
        );
        assert.deepEqual(
          (await presentIndexes(target)).filter((name) => name === 'vigil_reports_by_status'),
          ['vigil_reports_by_status'],
        );
      } finally {
        await opened.close();
        await server.query(target, `DROP OWNED BY ${role}`).catch(() => undefined);
      }
    });
  });
});

describe('a PostgreSQL server that is down, slow or refuses the login', () => {
  it('makes every call reject at once as unavailable while the server is stopped, naming the store without its password, and works again once it is back', async () => {
    const dsn = await server.database('outage');
    const store = postgresStore(dsn);
    await store.open();
    try {
      await store.write(encoded([report('00000a')]));
      await server.stop();
      for (const call of [
        () => store.write(encoded([report('00000b')])),
        () => store.leaseTokens(8),
        () => store.read('00000a'),
        () => store.search({}),
        () => store.count(),
        () => store.purge({ maxReports: 1, maxAgeMs: YEAR_MS }),
      ]) {
        const error = await call().then(
          () => undefined,
          (failure: unknown) => failure,
        );
        assert.ok(error instanceof ReportStoreUnavailableError, String(error));
        assert.match(
          error.message,
          /^the report store postgres:\/\/vigil@127\.0\.0\.1:\d+\/outage_\w+ is unavailable: /,
        );
        assertNoPassword(error.message);
      }
    } finally {
      await server.start();
    }
    try {
      await store.write(encoded([report('00000b', { time: T0 + 1 })]));
      assert.deepEqual(await storedTokens(store), ['00000a', '00000b']);
    } finally {
      await store.close();
    }
  });

  it('opens while the server is down, and creates its layout at the first call once the server is back', async () => {
    const dsn = await server.database('late');
    await server.stop();
    const store = postgresStore(dsn);
    try {
      await store.open();
      await assert.rejects(store.leaseTokens(4), ReportStoreUnavailableError);
    } finally {
      await server.start();
    }
    try {
      assert.equal((await store.leaseTokens(4)).length, 4);
      assert.deepEqual(await server.query(dsn, 'SELECT version FROM vigil_schema_version ORDER BY version'), [
        { version: 1 },
        { version: 2 },
        { version: 3 },
      ]);
    } finally {
      await store.close();
    }
  });

  it('bounds a statement that waits on the server: a write held up by a lock rejects as unavailable instead of hanging', async () => {
    const dsn = await server.database('slow');
    const store = postgresStore(dsn, { statementTimeoutMs: 300 });
    await store.open();
    // Another session holds the store's write lock and keeps it.
    const holder = server.query(dsn, 'SELECT pg_advisory_xact_lock(1986619241, 2), pg_sleep(3)');
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      const error = await store.write(encoded([report('00000a')])).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof ReportStoreUnavailableError, String(error));
      assert.match(error.message, /57014: canceling statement due to statement timeout/);
    } finally {
      await holder;
      await store.close();
    }
  });

  it('stops the open on a wrong password, naming the store and not the password', async () => {
    const dsn = (await server.database('login')).replace(encodeURIComponent(PG_PASSWORD), 'wrong-s3cret');
    const store = postgresStore(dsn);
    const error = await store.open().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof ReportStoreError && !(error instanceof ReportStoreUnavailableError), String(error));
    assert.match(
      error.message,
      /^the report store postgres:\/\/vigil@127\.0\.0\.1:\d+\/login_\w+ cannot be opened: 28P01: password authentication failed for user "vigil"$/,
    );
    assert.doesNotMatch(error.message, /wrong-s3cret/);
    await store.close();
  });

  it('stops the open on a database that does not exist, naming it', async () => {
    const dsn = (await server.database('exists')).replace(/\/exists_\w+$/, '/no_such_database');
    const store = postgresStore(dsn);
    await assert.rejects(store.open(), (error: unknown) => {
      assert.ok(error instanceof ReportStoreError && !(error instanceof ReportStoreUnavailableError), String(error));
      assert.match(
        error.message,
        /^the report store postgres:\/\/vigil@127\.0\.0\.1:\d+\/no_such_database cannot be opened: 3D000: database "no_such_database" does not exist$/,
      );
      return true;
    });
    await store.close();
  });
});
