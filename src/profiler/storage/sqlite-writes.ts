/**
 * Every write to the SQLite report store, as prepared statements in transactions: batched
 * inserts (each trace once), retention purges and clears. They run on the store's write
 * thread, so a batch never holds up the thread that answers requests.
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
}

export interface SqliteWrites {
  insert(rows: readonly ReportRow[], traces: readonly TraceRow[]): RowsOutcome;
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

  const expired = db.prepare('DELETE FROM reports WHERE time < ? RETURNING token').pluck();
  // The time index holds the rowid too: the newest `keep` are skipped without a sort.
  const surplus = db.prepare('DELETE FROM reports WHERE id IN (SELECT id FROM reports ORDER BY time DESC, id DESC LIMIT -1 OFFSET ?) RETURNING token').pluck();
  const orphanTraces = db.prepare('DELETE FROM traces WHERE NOT EXISTS (SELECT 1 FROM reports WHERE reports.trace = traces.hash)');
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

  return { insert, purge, clear };
}
