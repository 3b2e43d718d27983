/**
 * Every write to the SQLite report store (batched inserts, token leases, retention purges, clears), run
 * on the store's write thread so a batch never holds up the thread that answers requests. Transactions
 * that read before they write are immediate: they take the write lock first, so two processes never
 * act on the same row as they both read it.
 */
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.js';
import { TokenPermutation } from '../../tokens/token-permutation.js';
import type { EncodedTrace } from '../../model/report-encoding.js';
import { CREATE_COUNTER, newTokenKey } from './sqlite-schema.js';
import { prepareSearchIndex, type SearchIndexWrites } from './sqlite-search-index.js';

/** A report as stored: its summary columns, its sections as JSON, its trace's hash, and its facts. */
export type ReportRow = [
  token: string,
  time: number,
  method: string,
  url: string,
  status: number,
  ip: string,
  duration: number,
  data: string,
  trace: string | null,
  route: string | null,
  exception: string | null,
  fingerprint: string | null,
  statements: number | null,
  calls: number | null,
  asset: 0 | 1,
];

/** A stack trace as stored: its JSON under its hash, once for every report that shares it. */
export type TraceRow = EncodedTrace;

export interface RowsOutcome {
  rejected: string[];
  failed: Array<{ token: string; message: string }>;
  /** How many reports were deleted to stay within `keep`. */
  deleted: number;
}

/** Who asks to run the retention, when, and for how long it holds it. */
export interface LeaseRequest {
  holder: string;
  now: number;
  ms: number;
}

export interface SqliteWrites {
  /** Inserts the rows; with `keep`, at most that many reports remain, the oldest deleted first. */
  insert(rows: readonly ReportRow[], traces: readonly TraceRow[], keep?: number): RowsOutcome;
  /** How many reports are stored: counted once, then followed; counted again after another process wrote. */
  count(): number;
  /** `count` tokens of the counter, less those a stored report holds. */
  leaseTokens(count: number): string[];
  /** The id of the report written last, 0 in an empty store. */
  newestId(): number;
  /**
   * Deletes up to `chunk` reports older than `before` or beyond the newest `keep`, among those
   * up to `upToId`; returns how many, or undefined when `lease` is given and another holder
   * has the retention. Called again until it deletes none; each chunk is its own transaction,
   * so between two the write thread applies the batches that came meanwhile, and other
   * processes get the write lock.
   */
  purgeChunk(
    before: number,
    keep: number,
    lease: LeaseRequest | undefined,
    chunk: number,
    upToId: number,
  ): number | undefined;
  /** The search indexes, for the background fill of an older file. */
  readonly search: SearchIndexWrites;
  releaseRetention(holder: string): void;
  clear(): number;
}

/** Errors that belong to one report (too big, a constraint), not to the store. */
function isReportError(error: unknown): boolean {
  return /^SQLITE_(TOOBIG|CONSTRAINT|MISMATCH)/.test(String((error as { code?: unknown }).code));
}

export function prepareWrites(db: SqliteDatabase): SqliteWrites {
  const search = prepareSearchIndex(db);
  const reports = reportCount(db);
  const orphanTraces = db.prepare(
    'DELETE FROM traces WHERE NOT EXISTS (SELECT 1 FROM reports WHERE reports.trace = traces.hash)',
  );
  const deleting: Deleting = { search, reports, orphanTraces };
  const insert = prepareInsert(db, deleting);
  const leaseTokens = prepareTokenLease(db);
  const purgeChunk = preparePurge(db, deleting);
  const clear = prepareClear(db, search);
  const newest = db.prepare('SELECT coalesce(max(id), 0) FROM reports').pluck();
  const giveLeaseUp = db.prepare('UPDATE retention_lease SET expires = 0 WHERE id = 1 AND holder = ?');
  return {
    // Immediate: the count read before the deletes is then the one the deletes act on, whatever
    // another process writes meanwhile, so the store never holds more than `keep`.
    insert: forgettingCount(reports, 'failed', insert.immediate),
    count: () => reports.current(),
    leaseTokens: (count) => leaseTokens.immediate(count),
    newestId: () => newest.get() as number,
    purgeChunk: forgettingCount(reports, 'failed', purgeChunk.immediate),
    search,
    releaseRetention: (holder) => void giveLeaseUp.run(holder),
    clear: forgettingCount(reports, 'always', clear),
  };
}

/** What the writes that delete reports share: the indexes, the count, and the traces no report names any more. */
interface Deleting {
  search: SearchIndexWrites;
  reports: ReportCount;
  orphanTraces: SqliteStatement;
}

function prepareInsert(db: SqliteDatabase, { search, reports, orphanTraces }: Deleting) {
  const insertReport = db.prepare(
    `INSERT INTO reports (token, time, method, url, status, ip, duration, data, trace, route, exception, fingerprint, statements, calls, asset)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (token) DO NOTHING`,
  );
  const insertTrace = db.prepare('INSERT INTO traces (hash, json) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING');
  // The oldest in arrival order (rowid), not by time: a clock stepped back must not make the new ones look old.
  const oldest = db.prepare('SELECT id FROM reports ORDER BY id LIMIT ?').pluck();
  return db.transaction((rows: readonly ReportRow[], traces: readonly TraceRow[], keep?: number): RowsOutcome => {
    const outcome: RowsOutcome = { rejected: [], failed: [], deleted: 0 };
    const makeRoom = (incoming: number) => {
      const surplus = keep === undefined ? 0 : reports.current() + incoming - keep;
      if (surplus <= 0) return;
      const deleted = search.deleteReports(oldest.all(surplus) as number[]);
      reports.changed(-deleted);
      outcome.deleted += deleted;
    };
    // Before the inserts, so that they reuse the pages this frees: the file does not grow past what
    // the retention needs, however many reports arrive between two retention runs.
    makeRoom(rows.length);
    for (const trace of traces) insertTrace.run(trace.hash, trace.json);
    search.keepTailAbove();
    for (const row of rows) {
      try {
        if (insertReport.run(...row).changes === 0) outcome.rejected.push(row[0]);
        else reports.changed(1);
      } catch (error) {
        // One bad report costs itself only; the transaction goes on with the others. A full
        // disk or a damaged file is no report's fault: the batch fails and is rolled back whole.
        if (!isReportError(error)) throw error;
        outcome.failed.push({ token: row[0], message: (error as Error).message });
      }
    }
    // A batch larger than `keep` by itself.
    makeRoom(0);
    if (outcome.deleted > 0) orphanTraces.run();
    return outcome;
  });
}

function prepareTokenLease(db: SqliteDatabase) {
  const readCounter = db.prepare('SELECT next, key FROM token_counter WHERE id = 1');
  const createCounter = db.prepare(CREATE_COUNTER);
  const advanceCounter = db.prepare('UPDATE token_counter SET next = next + ? WHERE id = 1');
  const storedTokens = db.prepare('SELECT token FROM reports WHERE token IN (SELECT value FROM json_each(?))').pluck();
  let permutation: { key: Buffer; of: TokenPermutation } | undefined;
  return db.transaction((count: number): string[] => {
    // A BLOB is a Uint8Array from node:sqlite, a Buffer from better-sqlite3.
    type Counter = { next: number; key: Uint8Array };
    let counter = readCounter.get() as Counter | undefined;
    if (!counter) {
      // The row was deleted: a new key; the check below still keeps stored tokens out.
      createCounter.run(newTokenKey());
      counter = readCounter.get() as Counter;
    }
    advanceCounter.run(count);
    if (!permutation?.key.equals(counter.key))
      permutation = { key: Buffer.from(counter.key), of: new TokenPermutation(counter.key) };
    const tokens = Array.from({ length: count }, (_, i) => permutation!.of.token(counter.next + i));
    // 2^24 values on, the counter comes back to a token: a report that still holds it keeps it.
    const taken = new Set(storedTokens.all(JSON.stringify(tokens)) as string[]);
    return taken.size === 0 ? tokens : tokens.filter((token) => !taken.has(token));
  });
}

function preparePurge(db: SqliteDatabase, { search, reports, orphanTraces }: Deleting) {
  const readLease = db.prepare('SELECT holder, expires FROM retention_lease WHERE id = 1');
  const takeLease = db.prepare(
    'INSERT INTO retention_lease (id, holder, expires) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires',
  );
  const expired = db.prepare('SELECT id FROM reports WHERE time < ? AND id <= ? LIMIT ?').pluck();
  const oldestUpTo = db.prepare('SELECT id FROM reports WHERE id <= ? ORDER BY id LIMIT ?').pluck();
  return db.transaction(
    (
      before: number,
      keep: number,
      lease: LeaseRequest | undefined,
      chunk: number,
      upToId: number,
    ): number | undefined => {
      if (lease) {
        const current = readLease.get() as { holder: string; expires: number } | undefined;
        if (current && current.holder !== lease.holder && current.expires > lease.now) return undefined;
        takeLease.run(lease.holder, lease.now + lease.ms);
      }
      let deleted = search.deleteReports(expired.all(before, upToId, chunk) as number[]);
      reports.changed(-deleted);
      // The newest `keep` in arrival order are kept, whatever the clock said when they came.
      const surplus = Math.min(chunk - deleted, reports.current() - keep);
      if (surplus > 0) {
        const beyond = search.deleteReports(oldestUpTo.all(upToId, surplus) as number[]);
        reports.changed(-beyond);
        deleted += beyond;
      }
      if (deleted > 0) orphanTraces.run();
      return deleted;
    },
  );
}

function prepareClear(db: SqliteDatabase, search: SearchIndexWrites) {
  const deleteAll = db.prepare('DELETE FROM reports');
  const deleteTraces = db.prepare('DELETE FROM traces');
  return db.transaction((): number => {
    search.clear();
    const deleted = deleteAll.run().changes;
    deleteTraces.run();
    return deleted;
  });
}

/**
 * The write, followed by forgetting the count: after a failure only (`'failed'`: a write rolled back
 * takes what it did to the count with it), or after every run (`'always'`: purges and clears are
 * rare, and the count is simply taken again after them).
 */
function forgettingCount<A extends unknown[], R>(
  reports: ReportCount,
  when: 'failed' | 'always',
  write: (...args: A) => R,
): (...args: A) => R {
  return (...args) => {
    let done = false;
    try {
      const result = write(...args);
      done = true;
      return result;
    } finally {
      if (when === 'always' || !done) reports.forget();
    }
  };
}

type ReportCount = ReturnType<typeof reportCount>;

/**
 * How many reports the file holds, without counting them for every batch: counted once, then
 * followed through this connection's own writes, and counted again once another connection
 * has written (`data_version` changes; the command line's purge, for one).
 */
function reportCount(db: SqliteDatabase) {
  const countAll = db.prepare('SELECT count(*) FROM reports').pluck();
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let known: { reports: number; version: number } | undefined;
  return {
    current(): number {
      const now = dataVersion.get() as number;
      if (known?.version !== now) known = { reports: countAll.get() as number, version: now };
      return known.reports;
    },
    changed(by: number): void {
      if (known) known.reports += by;
    },
    forget(): void {
      known = undefined;
    },
  };
}
