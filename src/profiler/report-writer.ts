/**
 * Writes reports after their response, in batches: each report is encoded as it is queued
 * (so a batch costs no serializing on the response path), waits a few milliseconds for
 * companions and goes to the store with them in one transaction. The queue is bounded:
 * beyond it new reports are dropped, counted and logged (never silently).
 * Each batch is written with the number of reports to keep, so the store deletes the oldest
 * as it takes new ones: the store never holds more than the retention, however many
 * batches arrive between retention runs, whichever process writes it. Retention runs (age,
 * and a store that does not take the number) follow the batches, at least every second, and
 * every minute when idle, under the store's retention lease: when several processes write
 * one store, the one holding the lease purges and the others skip. Close flushes what is
 * queued.
 *
 * A failing store (a full disk) costs at most one log line a second per kind of failure,
 * with counts, and a failing retention run is retried with a backoff, not after every batch.
 * A store that cannot be reached (its database server down: `ReportStoreUnavailableError`)
 * loses nothing that fits in the queue: the reports wait, the write is tried again after
 * 0.2 s, 0.4 s... (at most every 5 s, and not at each new report), and the queue is written
 * once the store is back. Beyond the queue (20 000 reports, or 64 MiB of them) new reports
 * are dropped and counted.
 */
import type { FastifyBaseLogger } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Backoff, PacedFailureLog } from './failure-pacing.js';
import type { Redactor } from './redact.js';
import type { Report } from './report.js';
import { decodeReport, encodeReport, type EncodedReport } from './storage/report-encoding.js';
import { ReportStoreUnavailableError, type ReportStore, type Retention } from './storage/report-store.js';

export interface ReportWriterOptions {
  /** Reports waiting at most; beyond it new ones are dropped. */
  maxQueue?: number;
  /** Bytes of reports waiting at most (64 MiB): the bound that matters while the store cannot be reached. */
  maxQueueBytes?: number;
  /** A store that cannot be reached is tried again after this long (200 ms), twice as long after each failure... */
  retryFirstMs?: number;
  /** ...up to this (5 s). */
  retryMaxMs?: number;
  /** Reports per transaction at most. */
  batchSize?: number;
  /** Bytes of reports per transaction at most (one report larger than this goes alone). */
  maxBatchBytes?: number;
  /** How long a report may wait for companions before its batch is written. */
  flushDelayMs?: number;
  /** How many reports to keep, and for how long; none: keep everything. */
  retention?: Retention | undefined;
  /** How often retention runs when nothing is written (age still expires reports). */
  idlePurgeMs?: number;
  /** How long a retention run holds the store's retention lease (a second); tests hold it longer. */
  retentionLeaseMs?: number;
  log: FastifyBaseLogger;
  /** Redacts each report as it is encoded; without one, credential-like names only. */
  redactor?: Redactor | undefined;
}

/** Retention runs at least this often while reports are being written (age expires reports too). */
const PURGE_INTERVAL_MS = 1000;
/**
 * How far a store that does not apply `keep` in its writes may run past PROFILER_MAX_REPORTS
 * before a purge runs at once. A purge walks the newest reports (a millisecond for 10 000),
 * too dear for every 20 ms batch; whatever is over is deleted within PURGE_INTERVAL_MS anyway.
 */
const PURGE_SLACK = 0.1;
const DROP_WARNING_INTERVAL_MS = 1000;
/**
 * A transaction's reports go to the WAL whole before they reach the database: 512 KiB keeps
 * the WAL within its documented bound (`storage/sqlite-disk.ts`) under any burst.
 */
const MAX_BATCH_BYTES = 512 * 1024;
/** A failing retention run is tried again after 1 s, 2 s, 4 s... and at least every minute. */
const RETENTION_RETRY_FIRST_MS = 1000;
const RETENTION_RETRY_MAX_MS = 60_000;
const MAX_QUEUE_BYTES = 64 * 1024 * 1024;
const STORE_RETRY_FIRST_MS = 200;
const STORE_RETRY_MAX_MS = 5000;

const WRITE_FAILED = 'report store write failed';
const REPORTS_REFUSED = 'report store refused reports';
const RETENTION_FAILED = 'retention run failed';

/** The bytes a report adds to a transaction, near enough (its trace is stored once per batch at most). */
function sizeOf(report: EncodedReport): number {
  return report.data.length + report.url.length;
}

/** SQLite's code first (`SQLITE_FULL: database or disk is full`): the kind of trouble at a glance. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

/** `65536` as `64 KiB`, `67108864` as `64 MiB`. */
function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

export class ReportWriter {
  /** Reports not yet handed to the store, oldest first. */
  private queue: EncodedReport[] = [];
  private queueBytes = 0;
  /** Every report accepted and not yet stored or dropped: queued, or in a write under way. */
  private readonly pendingByToken = new Map<string, EncodedReport>();
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** A drain of the queue is chained on `writing` and has not started yet. */
  private drainChained = false;
  /** The store cannot be reached: the next attempt waits for this timer. */
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly storeBackoff: Backoff;
  private droppedCount = 0;
  private writtenCount = 0;
  private purgedCount = 0;
  private skippedCount = 0;
  /** This writer, as the holder of the store's retention lease. */
  private readonly holder = randomUUID();
  private readonly retentionLeaseMs: number;
  /** Another process ran the retention lately: a store over its limit is theirs to purge until then. */
  private heldElsewhereUntil = 0;
  /** Reports in the store as far as this writer knows; read again after each purge. */
  private storedCount = 0;
  private lastPurge = 0;
  private dropsLogged = 0;
  private lastDropWarning = 0;
  private lastDropReason = '';
  private dropWarningTimer: NodeJS.Timeout | undefined;
  private purgeTimer: NodeJS.Timeout | undefined;
  private readonly failures: PacedFailureLog;
  private writeFailing = false;
  private readonly retentionBackoff = new Backoff(RETENTION_RETRY_FIRST_MS, RETENTION_RETRY_MAX_MS);
  private closed = false;
  private readonly maxQueue: number;
  private readonly maxQueueBytes: number;
  private readonly batchSize: number;
  private readonly maxBatchBytes: number;
  private readonly flushDelayMs: number;

  constructor(private readonly store: ReportStore, private readonly options: ReportWriterOptions) {
    this.maxQueue = options.maxQueue ?? 20_000;
    this.maxQueueBytes = options.maxQueueBytes ?? MAX_QUEUE_BYTES;
    this.storeBackoff = new Backoff(options.retryFirstMs ?? STORE_RETRY_FIRST_MS, options.retryMaxMs ?? STORE_RETRY_MAX_MS);
    this.batchSize = options.batchSize ?? 1000;
    this.maxBatchBytes = options.maxBatchBytes ?? MAX_BATCH_BYTES;
    this.flushDelayMs = options.flushDelayMs ?? 20;
    this.retentionLeaseMs = options.retentionLeaseMs ?? PURGE_INTERVAL_MS;
    this.failures = new PacedFailureLog(options.log);
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

  /** Retention runs skipped since start because another process held the lease. */
  get retentionSkipped(): number {
    return this.skippedCount;
  }

  get queued(): number {
    return this.pendingByToken.size;
  }

  enqueue(report: Report): void {
    if (this.closed || this.pendingByToken.size >= this.maxQueue) {
      this.discard(1, this.closed ? 'the writer is closed' : `the write queue is full (${this.maxQueue} reports)`);
      return;
    }
    let encoded: EncodedReport;
    try {
      encoded = encodeReport(report, this.options.redactor);
    } catch (error) {
      this.discard(1, `one could not be serialized (${(error as Error).message})`);
      return;
    }
    const size = sizeOf(encoded);
    if (this.pendingBytes + size > this.maxQueueBytes) {
      this.discard(1, `the write queue is full (${formatBytes(this.maxQueueBytes)} of reports)`);
      return;
    }
    this.queue.push(encoded);
    this.queueBytes += size;
    // A token queued twice (the counter come round): the newer report is the one read back.
    const earlier = this.pendingByToken.get(report.token);
    if (earlier) this.pendingBytes -= sizeOf(earlier);
    this.pendingByToken.set(report.token, encoded);
    this.pendingBytes += size;
    // While the store cannot be reached, the retry timer writes the queue: no attempt per report.
    if (this.retryTimer) return;
    if (this.queue.length >= this.batchSize || this.queueBytes >= this.maxBatchBytes) this.flushSoon(0);
    else this.flushSoon(this.flushDelayMs);
  }

  /** A report accepted but not yet written, so it can be read at once. */
  pending(token: string): Report | undefined {
    const encoded = this.pendingByToken.get(token);
    return encoded && decodeReport(encoded, encoded.data, encoded.trace?.json);
  }

  /**
   * Writes everything queued so far, now, even while the store is waited for; resolves when
   * it is stored, or when the store could not be reached (the reports then wait in the queue).
   */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.queue.length > 0 && !this.drainChained) {
      this.drainChained = true;
      this.writing = this.writing.then(() => {
        this.drainChained = false;
        return this.drain();
      });
    }
    return this.writing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.idleTimer);
    clearTimeout(this.purgeTimer);
    await this.flush();
    clearTimeout(this.retryTimer);
    if (this.queue.length > 0) {
      const left = this.queue.splice(0);
      this.queueBytes = 0;
      for (const report of left) this.release(report);
      this.discard(left.length, 'the report store was unavailable when the writer closed');
    }
    // What stays behind is within the retention, as if the service had gone on: this last
    // run does not wait for the lease. Then the lease is given up, for another process to take.
    await this.enforceRetention(true);
    if (this.options.retention) await this.store.releaseRetention(this.holder).catch(() => undefined);
    clearTimeout(this.dropWarningTimer);
    if (this.droppedCount > this.dropsLogged) this.warnDropped();
    this.failures.flush();
  }

  private flushSoon(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), delayMs);
    this.timer.unref();
  }

  /** Takes the oldest reports off the queue: at most `batchSize` of them and `maxBatchBytes` bytes (one at least). */
  private takeBatch(): EncodedReport[] {
    let count = 0;
    let bytes = 0;
    while (count < this.queue.length && count < this.batchSize) {
      const size = sizeOf(this.queue[count]!);
      if (count > 0 && bytes + size > this.maxBatchBytes) break;
      bytes += size;
      count++;
    }
    this.queueBytes -= bytes;
    return this.queue.splice(0, count);
  }

  /** The report leaves the writer: stored, or dropped. */
  private release(report: EncodedReport): void {
    if (this.pendingByToken.get(report.token) !== report) return;
    this.pendingByToken.delete(report.token);
    this.pendingBytes -= sizeOf(report);
  }

  /** Writes the queue in batches, oldest first, until it is empty or the store cannot be reached. */
  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.takeBatch();
      try {
        const { rejected, failed, deleted = 0 } = await this.store.write(batch, this.options.retention?.maxReports);
        this.writtenCount += batch.length - rejected.length - failed.length;
        this.storedCount += batch.length - rejected.length - failed.length - deleted;
        this.writeSucceeded();
        this.purgedCount += deleted;
        // A stored report is never overwritten: the newcomer is counted, never written over it.
        if (rejected.length > 0) this.discard(rejected.length, 'their tokens were already stored');
        if (failed.length > 0) {
          this.failures.failed(REPORTS_REFUSED, `${failed.length} of ${batch.length}, the first: ${describe(failed[0]!.error)}`);
          this.discard(failed.length, 'the store refused them');
        }
      } catch (error) {
        if (error instanceof ReportStoreUnavailableError) {
          // Back to the head of the queue, in order; the next attempt waits.
          this.queue.unshift(...batch);
          this.queueBytes += batch.reduce((sum, report) => sum + sizeOf(report), 0);
          this.storeUnavailable(error);
          return;
        }
        this.writeFailing = true;
        this.failures.failed(WRITE_FAILED, describe(error));
        for (const report of batch) this.release(report);
        this.discard(batch.length, 'the store failed');
        continue;
      }
      for (const report of batch) this.release(report);
    }
    const retention = this.options.retention;
    if (!retention) return;
    const over = this.storedCount - retention.maxReports;
    const now = Date.now();
    if ((over > Math.floor(retention.maxReports * PURGE_SLACK) && now >= this.heldElsewhereUntil) || now - this.lastPurge >= PURGE_INTERVAL_MS) {
      await this.enforceRetention();
    } else if (over > 0 && !this.purgeTimer && !this.closed) {
      this.purgeTimer = setTimeout(() => {
        this.purgeTimer = undefined;
        this.writing = this.writing.then(() => this.enforceRetention());
      }, PURGE_INTERVAL_MS).unref();
    }
  }

  /** Runs the retention, unless another process holds the lease; `final` runs it regardless. */
  private async enforceRetention(final = false): Promise<void> {
    const retention = this.options.retention;
    if (!retention || !this.retentionBackoff.ready(Date.now())) return;
    try {
      const deleted = await this.store.purge(retention, final ? {} : { lease: { holder: this.holder, ms: this.retentionLeaseMs } });
      this.lastPurge = Date.now();
      if (deleted === undefined) {
        this.skippedCount++;
        this.heldElsewhereUntil = this.lastPurge + PURGE_INTERVAL_MS;
        this.retentionBackoff.succeeded();
        this.failures.succeeded(RETENTION_FAILED);
        return;
      }
      this.purgedCount += deleted;
      this.storedCount = await this.store.count();
      this.retentionBackoff.succeeded();
      this.failures.succeeded(RETENTION_FAILED);
    } catch (error) {
      const waitMs = this.retentionBackoff.failed(Date.now());
      this.failures.failed(RETENTION_FAILED, `${describe(error)} (next run in ${waitMs / 1000} s)`);
    }
  }

  /** A write went through: after failures, the store works again, and retention need not wait out its backoff. */
  private writeSucceeded(): void {
    if (!this.writeFailing) return;
    this.writeFailing = false;
    this.storeBackoff.succeeded();
    this.retentionBackoff.succeeded();
    this.failures.succeeded(WRITE_FAILED);
  }

  /** The store cannot be reached: the queue waits, and is written again after the backoff. */
  private storeUnavailable(error: ReportStoreUnavailableError): void {
    this.writeFailing = true;
    const waitMs = this.storeBackoff.failed(Date.now());
    this.failures.failed(WRITE_FAILED, `${error.message} (${this.queue.length} reports wait; next attempt in ${waitMs / 1000} s)`);
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.flush();
    }, waitMs);
    this.retryTimer.unref();
  }

  /** Counts `count` reports that will not be stored, and why; warns at most once a second. */
  discard(count: number, why: string): void {
    this.droppedCount += count;
    this.lastDropReason = why;
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
