/**
 * The embedded report store: one SQLite file under VAR_DIR (WAL mode, batched inserts in
 * one transaction, prepared statements). No server to run. The file's layout is in
 * `sqlite-schema.ts`: reports in arrival order, each stack trace stored once.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Report, ReportSearch, ReportSummary } from '../report.js';
import type { ReportStore, Retention, WriteOutcome } from './report-store.js';
import { prepareSchema } from './sqlite-schema.js';

const SUMMARY_COLUMNS = 'token, time, method, url, status, ip, duration';

interface StoredTrace {
  hash: string;
  json: string;
}

type Row = ReportSummary & { data: string; traceJson: string | null };

export class SqliteReportStore implements ReportStore {
  private readonly db: Database.Database;
  private readonly insertBatch: (reports: readonly Report[]) => WriteOutcome;
  private readonly purgeBoth: (before: number, keep: number) => string[];
  private readonly readRow: Database.Statement;
  /**
   * The exception collector hands the same trace array to every report of one throw path:
   * its JSON and hash are computed once per array.
   */
  private readonly traces = new WeakMap<object, StoredTrace>();

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    prepareSchema(this.db);

    const insert = this.db.prepare(
      `INSERT INTO reports (token, time, method, url, status, ip, duration, data, trace)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (token) DO NOTHING`,
    );
    const insertTrace = this.db.prepare('INSERT INTO traces (hash, json) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING');
    this.insertBatch = this.db.transaction((reports: readonly Report[]) => {
      const outcome: WriteOutcome = { rejected: [], failed: [] };
      const tracesWritten = new Set<string>();
      for (const report of reports) {
        try {
          const { data, trace } = this.serialize(report);
          if (trace && !tracesWritten.has(trace.hash)) {
            insertTrace.run(trace.hash, trace.json);
            tracesWritten.add(trace.hash);
          }
          const { changes } = insert.run(report.token, report.time, report.method, report.url, report.status, report.ip, report.duration, data, trace?.hash ?? null);
          if (changes === 0) outcome.rejected.push(report.token);
        } catch (error) {
          // One bad report costs itself only; the transaction goes on with the others.
          outcome.failed.push({ token: report.token, error: error as Error });
        }
      }
      return outcome;
    });

    const expired = this.db.prepare('DELETE FROM reports WHERE time < ? RETURNING token').pluck();
    // The time index holds the rowid too: the newest `keep` are skipped without a sort.
    const surplus = this.db.prepare('DELETE FROM reports WHERE id IN (SELECT id FROM reports ORDER BY time DESC, id DESC LIMIT -1 OFFSET ?) RETURNING token').pluck();
    const orphanTraces = this.db.prepare('DELETE FROM traces WHERE NOT EXISTS (SELECT 1 FROM reports WHERE reports.trace = traces.hash)');
    this.purgeBoth = this.db.transaction((before: number, keep: number) => {
      const deleted = [...(expired.all(before) as string[]), ...(surplus.all(keep) as string[])];
      if (deleted.length > 0) orphanTraces.run();
      return deleted;
    });
    this.readRow = this.db.prepare(
      `SELECT ${SUMMARY_COLUMNS}, data, traces.json AS traceJson FROM reports LEFT JOIN traces ON traces.hash = reports.trace WHERE token = ?`,
    );
  }

  async write(reports: readonly Report[]): Promise<WriteOutcome> {
    return this.insertBatch(reports);
  }

  async read(token: string): Promise<Report | undefined> {
    const row = this.readRow.get(token) as Row | undefined;
    if (!row) return undefined;
    const { data, traceJson, ...summary } = row;
    const collectors = JSON.parse(data) as Record<string, unknown>;
    if (traceJson !== null) collectors.exception = { ...(collectors.exception as object), trace: JSON.parse(traceJson) as unknown };
    return { ...summary, collectors };
  }

  async search(filters: ReportSearch): Promise<ReportSummary[]> {
    const where: string[] = [];
    const values: Array<string | number> = [];
    if (filters.ip) (where.push('instr(ip, ?) > 0'), values.push(filters.ip));
    if (filters.method) (where.push('method = ?'), values.push(filters.method.toUpperCase()));
    if (filters.statusCode !== undefined) (where.push('status = ?'), values.push(filters.statusCode));
    if (filters.url) (where.push('instr(url, ?) > 0'), values.push(filters.url));
    if (filters.token) (where.push('substr(token, 1, ?) = ?'), values.push(filters.token.length, filters.token.toLowerCase()));
    if (filters.start !== undefined) (where.push('time >= ?'), values.push(filters.start));
    if (filters.end !== undefined) (where.push('time <= ?'), values.push(filters.end));
    // Within one millisecond, the report written last comes first.
    const sql = `SELECT ${SUMMARY_COLUMNS} FROM reports ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY time DESC, id DESC LIMIT ?`;
    return this.db.prepare(sql).all(...values, filters.limit ?? 100) as ReportSummary[];
  }

  async tokens(): Promise<string[]> {
    return this.db.prepare('SELECT token FROM reports').pluck().all() as string[];
  }

  async count(): Promise<number> {
    return this.db.prepare('SELECT count(*) FROM reports').pluck().get() as number;
  }

  async purge({ maxReports, maxAgeMs }: Retention, now = Date.now()): Promise<string[]> {
    return this.purgeBoth(now - maxAgeMs, maxReports);
  }

  async clear(): Promise<string[]> {
    return this.db.transaction(() => {
      const deleted = this.db.prepare('DELETE FROM reports RETURNING token').pluck().all() as string[];
      this.db.exec('DELETE FROM traces');
      return deleted;
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }

  /** The report's sections as stored: its exception's trace apart, under its hash. */
  private serialize(report: Report): { data: string; trace: StoredTrace | undefined } {
    const exception = report.collectors.exception as { trace?: unknown } | undefined;
    const trace = exception?.trace;
    if (typeof trace !== 'object' || trace === null) return { data: JSON.stringify(report.collectors), trace: undefined };
    let stored = this.traces.get(trace);
    if (stored === undefined) {
      const json = JSON.stringify(trace);
      stored = { hash: createHash('sha256').update(json).digest('base64url'), json };
      this.traces.set(trace, stored);
    }
    const data = JSON.stringify({ ...report.collectors, exception: { ...exception, trace: undefined } });
    return { data, trace: stored };
  }
}
