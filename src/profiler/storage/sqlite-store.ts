/**
 * The embedded report store: one SQLite file under VAR_DIR (WAL mode, batched inserts in
 * one transaction, prepared statements). No server to run.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Report, ReportSearch, ReportSummary } from '../report.js';
import type { ReportStore, Retention, WriteOutcome } from './report-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS reports (
  token TEXT PRIMARY KEY,
  time INTEGER NOT NULL,
  method TEXT NOT NULL,
  url TEXT NOT NULL,
  status INTEGER NOT NULL,
  ip TEXT NOT NULL,
  duration REAL NOT NULL,
  data TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS reports_by_time ON reports (time);
`;

const SUMMARY_COLUMNS = 'token, time, method, url, status, ip, duration';

export class SqliteReportStore implements ReportStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly insertBatch: (reports: readonly Report[]) => WriteOutcome;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.insert = this.db.prepare(
      `INSERT INTO reports (token, time, method, url, status, ip, duration, data)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (token) DO NOTHING`,
    );
    this.insertBatch = this.db.transaction((reports: readonly Report[]) => {
      const outcome: WriteOutcome = { rejected: [], failed: [] };
      for (const report of reports) {
        try {
          const { changes } = this.insert.run(
            report.token, report.time, report.method, report.url, report.status, report.ip, report.duration, JSON.stringify(report.collectors),
          );
          if (changes === 0) outcome.rejected.push(report.token);
        } catch (error) {
          // One bad report costs itself only; the transaction goes on with the others.
          outcome.failed.push({ token: report.token, error: error as Error });
        }
      }
      return outcome;
    });
  }

  async write(reports: readonly Report[]): Promise<WriteOutcome> {
    return this.insertBatch(reports);
  }

  async read(token: string): Promise<Report | undefined> {
    const row = this.db.prepare(`SELECT ${SUMMARY_COLUMNS}, data FROM reports WHERE token = ?`).get(token) as (ReportSummary & { data: string }) | undefined;
    if (!row) return undefined;
    const { data, ...summary } = row;
    return { ...summary, collectors: JSON.parse(data) as Record<string, unknown> };
  }

  async search(filters: ReportSearch): Promise<ReportSummary[]> {
    const where: string[] = [];
    const values: Array<string | number> = [];
    if (filters.ip) (where.push('instr(ip, ?) > 0'), values.push(filters.ip));
    if (filters.method) (where.push('method = ?'), values.push(filters.method.toUpperCase()));
    if (filters.statusCode !== undefined) (where.push('status = ?'), values.push(filters.statusCode));
    if (filters.url) (where.push("instr(url, ?) > 0"), values.push(filters.url));
    if (filters.token) (where.push("substr(token, 1, ?) = ?"), values.push(filters.token.length, filters.token.toLowerCase()));
    if (filters.start !== undefined) (where.push('time >= ?'), values.push(filters.start));
    if (filters.end !== undefined) (where.push('time <= ?'), values.push(filters.end));
    const sql = `SELECT ${SUMMARY_COLUMNS} FROM reports ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY time DESC LIMIT ?`;
    return this.db.prepare(sql).all(...values, filters.limit ?? 100) as ReportSummary[];
  }

  async tokens(): Promise<string[]> {
    return this.db.prepare('SELECT token FROM reports').pluck().all() as string[];
  }

  async count(): Promise<number> {
    return this.db.prepare('SELECT count(*) FROM reports').pluck().get() as number;
  }

  async purge({ maxReports, maxAgeMs }: Retention, now = Date.now()): Promise<string[]> {
    return this.db.transaction(() => {
      const expired = this.db.prepare('DELETE FROM reports WHERE time < ? RETURNING token').pluck().all(now - maxAgeMs) as string[];
      const surplus = this.db
        .prepare('DELETE FROM reports WHERE token IN (SELECT token FROM reports ORDER BY time DESC LIMIT -1 OFFSET ?) RETURNING token')
        .pluck()
        .all(maxReports) as string[];
      return [...expired, ...surplus];
    })();
  }

  async clear(): Promise<string[]> {
    return this.db.prepare('DELETE FROM reports RETURNING token').pluck().all() as string[];
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
