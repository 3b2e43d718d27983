/**
 * Every write to the SQLite report store, as prepared statements in transactions: batched
 * inserts (each trace once), token leases, retention purges under the retention lease, and
 * clears. They run on the store's write thread, so a batch never holds up the thread that
 * answers requests. Transactions that read before they write are immediate: they take the
 * write lock first, so that two processes never act on the same row as they both read it.
 */
import type Database from 'better-sqlite3';
import { TokenPermutation } from '../../debug/token-permutation.js';
import type { EncodedTrace } from './report-encoding.js';
import { CREATE_COUNTER, newTokenKey } from './sqlite-schema.js';

/** A report as stored: its summary columns, its sections as JSON, and its trace's hash. */
export type ReportRow = [token: string, time: number, method: string, url: string, status: number, ip: string, duration: number, data: string, trace: string | null];

/** A stack trace as stored: its JSON under its hash, once for every report that shares it. */
export type TraceRow = EncodedTrace;

export interface RowsOutcome {
  rejected: string[];
  failed: Array<{ token: string; message: string }>;
}

/** Who asks to run the retention, when, and for how long it holds it. */
export interface LeaseRequest {
  holder: string;
  now: number;
  ms: number;
}

export interface SqliteWrites {
  insert(rows: readonly ReportRow[], traces: readonly TraceRow[]): RowsOutcome;
  /** `count` tokens of the counter, less those a stored report holds. */
  leaseTokens(count: number): string[];
  /**
   * Deletes reports older than `before` and beyond the newest `keep`; returns how many, or
   * undefined when `lease` is given and another holder has the retention.
   */
  purge(before: number, keep: number, lease: LeaseRequest | undefined): number | undefined;
  releaseRetention(holder: string): void;
  clear(): number;
}

/** Errors that belong to one report (too big, a constraint), not to the store. */
function isReportError(error: unknown): boolean {
  return /^SQLITE_(TOOBIG|CONSTRAINT|MISMATCH)/.test(String((error as { code?: unknown }).code));
}

export function prepareWrites(db: Database.Database): SqliteWrites {
  const insertReport = db.prepare(
    `INSERT INTO reports (token, time, method, url, status, ip, duration, data, trace)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (token) DO NOTHING`,
  );
  const insertTrace = db.prepare('INSERT INTO traces (hash, json) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING');
  const insert = db.transaction((rows: readonly ReportRow[], traces: readonly TraceRow[]): RowsOutcome => {
    const outcome: RowsOutcome = { rejected: [], failed: [] };
    for (const trace of traces) insertTrace.run(trace.hash, trace.json);
    for (const row of rows) {
      try {
        if (insertReport.run(...row).changes === 0) outcome.rejected.push(row[0]);
      } catch (error) {
        // One bad report costs itself only; the transaction goes on with the others. A full
        // disk or a damaged file is no report's fault: the batch fails and is rolled back whole.
        if (!isReportError(error)) throw error;
        outcome.failed.push({ token: row[0], message: (error as Error).message });
      }
    }
    return outcome;
  });

  const readCounter = db.prepare('SELECT next, key FROM token_counter WHERE id = 1');
  const createCounter = db.prepare(CREATE_COUNTER);
  const advanceCounter = db.prepare('UPDATE token_counter SET next = next + ? WHERE id = 1');
  const storedTokens = db.prepare('SELECT token FROM reports WHERE token IN (SELECT value FROM json_each(?))').pluck();
  let permutation: { key: Buffer; of: TokenPermutation } | undefined;
  const leaseTokens = db.transaction((count: number): string[] => {
    type Counter = { next: number; key: Buffer };
    let counter = readCounter.get() as Counter | undefined;
    if (!counter) {
      // The row was deleted: a new key; the check below still keeps stored tokens out.
      createCounter.run(newTokenKey());
      counter = readCounter.get() as Counter;
    }
    advanceCounter.run(count);
    if (!permutation?.key.equals(counter.key)) permutation = { key: counter.key, of: new TokenPermutation(counter.key) };
    const tokens = Array.from({ length: count }, (_, i) => permutation!.of.token(counter.next + i));
    // 2^24 values on, the counter comes back to a token: a report that still holds it keeps it.
    const taken = new Set(storedTokens.all(JSON.stringify(tokens)) as string[]);
    return taken.size === 0 ? tokens : tokens.filter((token) => !taken.has(token));
  });

  const readLease = db.prepare('SELECT holder, expires FROM retention_lease WHERE id = 1');
  const takeLease = db.prepare(
    'INSERT INTO retention_lease (id, holder, expires) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires',
  );
  const giveLeaseUp = db.prepare('UPDATE retention_lease SET expires = 0 WHERE id = 1 AND holder = ?');
  const expired = db.prepare('DELETE FROM reports WHERE time < ?');
  // The time index holds the rowid too: the newest `keep` are skipped without a sort.
  const surplus = db.prepare('DELETE FROM reports WHERE id IN (SELECT id FROM reports ORDER BY time DESC, id DESC LIMIT -1 OFFSET ?)');
  const orphanTraces = db.prepare('DELETE FROM traces WHERE NOT EXISTS (SELECT 1 FROM reports WHERE reports.trace = traces.hash)');
  const purge = db.transaction((before: number, keep: number, lease: LeaseRequest | undefined): number | undefined => {
    if (lease) {
      const current = readLease.get() as { holder: string; expires: number } | undefined;
      if (current && current.holder !== lease.holder && current.expires > lease.now) return undefined;
      takeLease.run(lease.holder, lease.now + lease.ms);
    }
    const deleted = expired.run(before).changes + surplus.run(keep).changes;
    if (deleted > 0) orphanTraces.run();
    return deleted;
  });

  const deleteAll = db.prepare('DELETE FROM reports');
  const deleteTraces = db.prepare('DELETE FROM traces');
  const clear = db.transaction((): number => {
    const deleted = deleteAll.run().changes;
    deleteTraces.run();
    return deleted;
  });

  return {
    insert,
    leaseTokens: (count) => leaseTokens.immediate(count),
    purge: (before, keep, lease) => purge.immediate(before, keep, lease),
    releaseRetention: (holder) => void giveLeaseUp.run(holder),
    clear,
  };
}
