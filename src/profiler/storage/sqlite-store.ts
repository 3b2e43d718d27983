/**
 * The embedded report store: one SQLite file (WAL mode), by default under VAR_DIR. No
 * server to run; several processes may write the same file. The file's layout is in
 * `sqlite-schema.ts`: reports in arrival order, each stack trace stored once, the token
 * counter and the retention lease. Reports arrive encoded (`report-encoding.ts`) and are
 * written by a thread of their own (`sqlite-write-thread.ts`), in batched transactions, so
 * that writing never holds up the thread that answers requests; reads use this thread's
 * own connection. The file is checked when the store opens (`sqlite-check.ts`).
 */
import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Report, ReportSearch, ReportSummary } from '../report.js';
import { decodeReport, type EncodedReport } from './report-encoding.js';
import { ReportStoreError, type PurgeOptions, type ReportStore, type Retention, type WriteOutcome } from './report-store.js';
import { openCheckedDatabase, type MovedAside } from './sqlite-check.js';
import type { WriteCommand, WriteReply, WriteThreadData } from './sqlite-write-thread.js';
import type { ReportRow, RowsOutcome, TraceRow } from './sqlite-writes.js';

const SUMMARY_COLUMNS = 'token, time, method, url, status, ip, duration';
// The thread's module sits beside this one, as .ts under tsx and as .js once compiled.
const WRITE_THREAD = new URL(`./sqlite-write-thread${extname(import.meta.url)}`, import.meta.url);

/** The thread holds a batch at a time: a small heap keeps the process's footprint down. */
const WRITE_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 };

/**
 * A worker thread on Node 20 does not inherit the `--import tsx` loader, so under tsx the
 * thread starts from a line of script that loads its TypeScript module through tsx's API.
 */
function startWriteThread(workerData: WriteThreadData): Worker {
  if (!WRITE_THREAD.pathname.endsWith('.ts')) return new Worker(WRITE_THREAD, { workerData, resourceLimits: WRITE_THREAD_LIMITS });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(WRITE_THREAD.href)}, ${JSON.stringify(WRITE_THREAD.href)}))`;
  return new Worker(boot, { eval: true, workerData, resourceLimits: WRITE_THREAD_LIMITS });
}

type Row = ReportSummary & { data: string; traceJson: string | null };
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** Distributes commands to the write thread and its replies back to the callers. */
class WriteThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private failure: Error | undefined;
  private readonly exited: Promise<void>;

  constructor(data: WriteThreadData) {
    this.worker = startWriteThread(data);
    // The thread lives until close(), which every owner of a store calls.
    this.worker.on('message', (reply: WriteReply) => {
      const caller = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if ('error' in reply) caller?.reject(Object.assign(new Error(reply.error), { code: reply.code }));
      else caller?.resolve(reply.result);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) => this.worker.once('exit', () => {
      this.fail(new Error('The report store\'s write thread has stopped'));
      resolve();
    }));
  }

  send<T>(command: WithoutId<WriteCommand>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...command, id } as WriteCommand);
    });
  }

  async close(): Promise<void> {
    await this.send({ kind: 'close' }).catch(() => undefined);
    await this.exited;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const caller of this.waiting.values()) caller.reject(error);
    this.waiting.clear();
  }
}

export interface SqliteStoreOptions {
  /**
   * Called when the file was found damaged at open, after it was moved aside and a new store
   * created. Without it a damaged file is left as it is and `open()` rejects with a
   * `ReportStoreError` naming it.
   */
  onDamaged?: (moved: MovedAside) => void;
  /** Tests only: the write connection refuses to grow the file past this many pages, as a full disk would. */
  maxPageCount?: number;
}

/** The connection and thread of an open store. */
interface Opened {
  db: Database.Database;
  writer: WriteThread;
  readRow: Database.Statement;
}

export class SqliteReportStore implements ReportStore {
  private opened: Opened | undefined;

  /** Touches nothing: the file is checked and opened by {@link open}. */
  constructor(readonly file: string, private readonly options: SqliteStoreOptions = {}) {}

  get location(): string {
    return this.file;
  }

  async exists(): Promise<boolean> {
    return existsSync(this.file);
  }

  async open(): Promise<void> {
    if (this.opened) return;
    // Checked, opened (and its schema prepared) before the thread opens its own connection.
    const { db, movedAside } = openCheckedDatabase(this.file, this.options.onDamaged !== undefined);
    if (movedAside) this.options.onDamaged!(movedAside);
    const readRow = db.prepare(
      `SELECT ${SUMMARY_COLUMNS}, data, traces.json AS traceJson FROM reports LEFT JOIN traces ON traces.hash = reports.trace WHERE token = ?`,
    );
    this.opened = { db, readRow, writer: new WriteThread({ file: this.file, maxPageCount: this.options.maxPageCount }) };
  }

  async write(reports: readonly EncodedReport[], keep?: number): Promise<WriteOutcome> {
    const rows: ReportRow[] = [];
    const traces = new Map<string, TraceRow>();
    for (const { token, time, method, url, status, ip, duration, data, trace } of reports) {
      if (trace) traces.set(trace.hash, trace);
      rows.push([token, time, method, url, status, ip, duration, data, trace?.hash ?? null]);
    }
    const outcome = await this.use().writer.send<RowsOutcome>({ kind: 'insert', rows, traces: [...traces.values()], keep });
    const failed = outcome.failed.map(({ token, message }) => ({ token, error: new Error(message) }));
    return keep === undefined ? { rejected: outcome.rejected, failed } : { rejected: outcome.rejected, failed, deleted: outcome.deleted };
  }

  async read(token: string): Promise<Report | undefined> {
    const row = this.use().readRow.get(token) as Row | undefined;
    return row && decodeReport(row, row.data, row.traceJson);
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
    // Newest in arrival order: the report written last comes first, even after the clock was stepped back.
    const sql = `SELECT ${SUMMARY_COLUMNS} FROM reports ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    return this.use().db.prepare(sql).all(...values, filters.limit ?? 100) as ReportSummary[];
  }

  async count(): Promise<number> {
    return this.use().db.prepare('SELECT count(*) FROM reports').pluck().get() as number;
  }

  async leaseTokens(count: number): Promise<string[]> {
    return this.use().writer.send<string[]>({ kind: 'lease', count });
  }

  async purge({ maxReports, maxAgeMs }: Retention, { now = Date.now(), lease }: PurgeOptions = {}): Promise<number | undefined> {
    const request = lease && { holder: lease.holder, ms: lease.ms, now };
    const deleted = await this.use().writer.send<number | null | undefined>({ kind: 'purge', before: now - maxAgeMs, keep: maxReports, lease: request });
    // Structured cloning keeps undefined; null is taken the same way, to be safe.
    return deleted ?? undefined;
  }

  async releaseRetention(holder: string): Promise<void> {
    await this.use().writer.send({ kind: 'release-retention', holder });
  }

  async clear(): Promise<number> {
    return this.use().writer.send<number>({ kind: 'clear' });
  }

  async close(): Promise<void> {
    const opened = this.opened;
    if (!opened) return;
    this.opened = undefined;
    await opened.writer.close();
    opened.db.close();
  }

  private use(): Opened {
    if (!this.opened) throw new ReportStoreError(this.file, `the report store ${this.file} is not open`);
    return this.opened;
  }
}
