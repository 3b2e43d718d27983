/**
 * Every write to the SQLite report store, as prepared statements in transactions: batched
 * inserts (each trace once), retention purges and clears. They run on the store's write
 * thread, so a batch never holds up the thread that answers requests.
 *
 * An insert given a number of reports to keep deletes the oldest beyond it in its own
 * transaction, before inserting: the new reports take the pages of the deleted ones, so the
 * file does not grow past what the retention needs, however many reports arrive between
 * two retention runs.
 */
import type Database from 'better-sqlite3';
import type { EncodedTrace } from './report-encoding.js';

/** A report as stored: its summary columns, its sections as JSON, and its trace's hash. */
export type ReportRow = [token: string, time: number, method: string, url: string, status: number, ip: string, duration: number, data: string, trace: string | null];

/** A stack trace as stored: its JSON under its hash, once for every report that shares it. */
export type TraceRow = EncodedTrace;

export interface RowsOutcome {
  rejected: string[];
  failed: Array<{ token: string; message: string }>;
  /** Reports deleted to stay within `keep`. */
  deleted: string[];
}

export interface SqliteWrites {
  /** Inserts the rows; with `keep`, at most that many reports remain, the oldest deleted first. */
  insert(rows: readonly ReportRow[], traces: readonly TraceRow[], keep?: number): RowsOutcome;
  /** Deletes reports older than `before` and beyond the newest `keep`; returns their tokens. */
  purge(before: number, keep: number): string[];
  clear(): string[];
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
  // The time index holds the rowid too: the oldest are found from its start, without a sort.
  const oldest = db.prepare('DELETE FROM reports WHERE id IN (SELECT id FROM reports ORDER BY time, id LIMIT ?) RETURNING token').pluck();
  const orphanTraces = db.prepare('DELETE FROM traces WHERE NOT EXISTS (SELECT 1 FROM reports WHERE reports.trace = traces.hash)');
  const reports = reportCount(db);

  const insert = db.transaction((rows: readonly ReportRow[], traces: readonly TraceRow[], keep?: number): RowsOutcome => {
    const outcome: RowsOutcome = { rejected: [], failed: [], deleted: [] };
    const makeRoom = (incoming: number) => {
      const surplus = keep === undefined ? 0 : reports.current() + incoming - keep;
      if (surplus <= 0) return;
      const deleted = oldest.all(surplus) as string[];
      reports.changed(-deleted.length);
      outcome.deleted.push(...deleted);
    };
    // Before the inserts, so that they reuse the pages this frees.
    makeRoom(rows.length);
    for (const trace of traces) insertTrace.run(trace.hash, trace.json);
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
    if (outcome.deleted.length > 0) orphanTraces.run();
    return outcome;
  });

  const expired = db.prepare('DELETE FROM reports WHERE time < ? RETURNING token').pluck();
  // The newest `keep` are skipped along the time index, without a sort.
  const surplus = db.prepare('DELETE FROM reports WHERE id IN (SELECT id FROM reports ORDER BY time DESC, id DESC LIMIT -1 OFFSET ?) RETURNING token').pluck();
  const purge = db.transaction((before: number, keep: number): string[] => {
    const deleted = [...(expired.all(before) as string[]), ...(surplus.all(keep) as string[])];
    if (deleted.length > 0) orphanTraces.run();
    return deleted;
  });

  const deleteAll = db.prepare('DELETE FROM reports RETURNING token').pluck();
  const clear = db.transaction((): string[] => {
    const deleted = deleteAll.all() as string[];
    db.exec('DELETE FROM traces');
    return deleted;
  });

  // A failed write was rolled back: what it did to the count is forgotten with it.
  const forgetting = <A extends unknown[], R>(write: (...args: A) => R) => (...args: A): R => {
    try {
      return write(...args);
    } catch (error) {
      reports.forget();
      throw error;
    }
  };
  // Purges and clears are rare: the count is simply taken again after them.
  const recounting = <A extends unknown[], R>(write: (...args: A) => R) => (...args: A): R => {
    try {
      return write(...args);
    } finally {
      reports.forget();
    }
  };
  return { insert: forgetting(insert), purge: recounting(purge), clear: recounting(clear) };
}

/**
 * How many reports the file holds, without counting them for every batch: counted once, then
 * followed through this connection's own writes, and counted again once another connection
 * has written (`data_version` changes; the command line's purge, for one).
 */
function reportCount(db: Database.Database) {
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
