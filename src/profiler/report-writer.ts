/**
 * Writes reports after their response, in batches: each report is encoded as it is queued
 * (so a batch costs no serializing on the response path), waits a few milliseconds for
 * companions and goes to the store with them in one transaction. The queue is bounded:
 * beyond it new reports are dropped, counted and logged (never silently), and their
 * tokens handed back.
 * After each batch (and every minute when idle) the retention is enforced, and the tokens
 * of deleted reports are handed back too. Close flushes what is queued.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redactor } from './redact.js';
import type { Report } from './report.js';
import { decodeReport, encodeReport, type EncodedReport } from './storage/report-encoding.js';
import type { ReportStore, Retention } from './storage/report-store.js';

export interface ReportWriterOptions {
  /** Reports waiting at most; beyond it new ones are dropped. */
  maxQueue?: number;
  /** Reports per transaction at most. */
  batchSize?: number;
  /** How long a report may wait for companions before its batch is written. */
  flushDelayMs?: number;
  /** How many reports to keep, and for how long; none: keep everything. */
  retention?: Retention | undefined;
  /** How often retention runs when nothing is written (age still expires reports). */
  idlePurgeMs?: number;
  log: FastifyBaseLogger;
  /** Redacts each report as it is encoded; without one, credential-like names only. */
  redactor?: Redactor | undefined;
  /** Called with tokens that are free again: their reports were dropped, or deleted by retention. */
  releaseTokens: (tokens: string[]) => void;
}

/** Retention runs at least this often while reports are being written (age expires reports too). */
const PURGE_INTERVAL_MS = 1000;
/**
 * How far the store may run past PROFILER_MAX_REPORTS before a purge runs at once. A purge
 * walks the newest reports (a millisecond for 10 000), too dear for every 20 ms batch;
 * whatever is over is deleted within PURGE_INTERVAL_MS anyway.
 */
const PURGE_SLACK = 0.1;
const DROP_WARNING_INTERVAL_MS = 1000;

export class ReportWriter {
  private queue: EncodedReport[] = [];
  private readonly pendingByToken = new Map<string, EncodedReport>();
  private timer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private droppedCount = 0;
  private writtenCount = 0;
  private purgedCount = 0;
  /** Reports in the store as far as this writer knows; read again after each purge. */
  private storedCount = 0;
  private lastPurge = 0;
  private dropsLogged = 0;
  private lastDropWarning = 0;
  private lastDropReason = '';
  private dropWarningTimer: NodeJS.Timeout | undefined;
  private purgeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly maxQueue: number;
  private readonly batchSize: number;
  private readonly flushDelayMs: number;

  constructor(private readonly store: ReportStore, private readonly options: ReportWriterOptions) {
    this.maxQueue = options.maxQueue ?? 20_000;
    this.batchSize = options.batchSize ?? 1000;
    this.flushDelayMs = options.flushDelayMs ?? 20;
  }

  /** Applies the retention to what is already stored and starts the idle purge. */
  async open(): Promise<void> {
    await this.enforceRetention();
    if (this.options.retention) {
      this.idleTimer = setInterval(() => {
        this.writing = this.writing.then(() => this.enforceRetention());
      }, this.options.idlePurgeMs ?? 60_000);
      this.idleTimer.unref();
    }
  }

  /** Reports dropped or rejected since start. */
  get dropped(): number {
    return this.droppedCount;
  }

  get written(): number {
    return this.writtenCount;
  }

  /** Reports deleted by retention since start. */
  get purged(): number {
    return this.purgedCount;
  }

  get queued(): number {
    return this.pendingByToken.size;
  }

  enqueue(report: Report): void {
    if (this.closed || this.pendingByToken.size >= this.maxQueue) {
      this.discard([report.token], this.closed ? 'the writer is closed' : `the write queue is full (${this.maxQueue} reports)`);
      return;
    }
    let encoded: EncodedReport;
    try {
      encoded = encodeReport(report, this.options.redactor);
    } catch (error) {
      this.discard([report.token], `one could not be serialized (${(error as Error).message})`);
      return;
    }
    this.queue.push(encoded);
    this.pendingByToken.set(report.token, encoded);
    if (this.queue.length >= this.batchSize) this.flushSoon(0);
    else this.flushSoon(this.flushDelayMs);
  }

  /** A report accepted but not yet written, so it can be read at once. */
  pending(token: string): Report | undefined {
    const encoded = this.pendingByToken.get(token);
    return encoded && decodeReport(encoded, encoded.data, encoded.trace?.json);
  }

  /** Writes everything queued so far; resolves when it is stored. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0) this.writing = this.writing.then(() => this.writeBatches(batch));
    return this.writing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.idleTimer);
    clearTimeout(this.purgeTimer);
    await this.flush();
    // What stays behind is within the retention, as if the service had gone on.
    await this.enforceRetention();
    clearTimeout(this.dropWarningTimer);
    if (this.droppedCount > this.dropsLogged) this.warnDropped();
  }

  private flushSoon(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), delayMs);
    this.timer.unref();
  }

  private async writeBatches(reports: EncodedReport[]): Promise<void> {
    for (let i = 0; i < reports.length; i += this.batchSize) {
      const batch = reports.slice(i, i + this.batchSize);
      try {
        const { rejected, failed } = await this.store.write(batch);
        this.writtenCount += batch.length - rejected.length - failed.length;
        this.storedCount += batch.length - rejected.length - failed.length;
        // A rejected token belongs to a report already stored: it stays taken.
        if (rejected.length > 0) this.discard(rejected, 'their tokens were already stored', false);
        if (failed.length > 0) {
          this.options.log.error({ err: failed[0]!.error, tokens: failed.map((f) => f.token) }, `The store refused ${failed.length} debug reports`);
          this.discard(failed.map((f) => f.token), 'the store refused them');
        }
      } catch (error) {
        this.options.log.error({ err: error }, `Writing ${batch.length} debug reports failed`);
        this.discard(batch.map((report) => report.token), 'the store failed');
      } finally {
        for (const report of batch) this.pendingByToken.delete(report.token);
      }
    }
    const retention = this.options.retention;
    if (!retention) return;
    const over = this.storedCount - retention.maxReports;
    if (over > Math.floor(retention.maxReports * PURGE_SLACK) || Date.now() - this.lastPurge >= PURGE_INTERVAL_MS) {
      await this.enforceRetention();
    } else if (over > 0 && !this.purgeTimer && !this.closed) {
      this.purgeTimer = setTimeout(() => {
        this.purgeTimer = undefined;
        this.writing = this.writing.then(() => this.enforceRetention());
      }, PURGE_INTERVAL_MS).unref();
    }
  }

  private async enforceRetention(): Promise<void> {
    const retention = this.options.retention;
    if (!retention) return;
    try {
      const deleted = await this.store.purge(retention);
      this.lastPurge = Date.now();
      this.purgedCount += deleted.length;
      if (deleted.length > 0) this.options.releaseTokens(deleted);
      this.storedCount = await this.store.count();
    } catch (error) {
      this.options.log.error({ err: error }, 'Deleting debug reports beyond the retention failed');
    }
  }

  private discard(tokens: string[], why: string, releaseTokens = true): void {
    this.droppedCount += tokens.length;
    this.lastDropReason = why;
    if (releaseTokens) this.options.releaseTokens(tokens);
    const sinceWarning = Date.now() - this.lastDropWarning;
    if (sinceWarning >= DROP_WARNING_INTERVAL_MS) this.warnDropped();
    // Drops within the interval are reported together once it is over.
    else this.dropWarningTimer ??= setTimeout(() => this.warnDropped(), DROP_WARNING_INTERVAL_MS - sinceWarning).unref();
  }

  private warnDropped(): void {
    clearTimeout(this.dropWarningTimer);
    this.dropWarningTimer = undefined;
    this.lastDropWarning = Date.now();
    this.dropsLogged = this.droppedCount;
    this.options.log.warn({ dropped: this.droppedCount }, `Debug reports dropped because ${this.lastDropReason}: ${this.droppedCount} since start`);
  }
}
