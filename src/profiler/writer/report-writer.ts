/**
 * Writes reports after their response, in batches, to the store, and runs the retention. The queue is
 * bounded: beyond it new reports are dropped, counted and logged, never silently. A store that cannot be
 * reached loses nothing that fits: the reports wait and are written once it is back. Close flushes
 * what is queued.
 */
import type { FastifyBaseLogger } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Backoff } from '../../utils/backoff.js';
import { describeFailure } from '../../utils/describe-failure.js';
import { PacedFailureLog } from '../../utils/failure-log.js';
import { Throttle } from '../../utils/throttle.js';
import type { Redactor } from '../redaction/redact.js';
import type { Report } from '../model/report.js';
import { decodeReport, encodeReport, type EncodedReport } from '../model/report-encoding.js';
import { ReportStoreUnavailableError, type ReportStore, type Retention } from '../storage/report-store.js';
import { sizeOf, WriteQueue } from './write-queue.js';

/** A writer's counters since start: reports waiting to be written, dropped, and deleted by retention. */
export interface WriterCounters {
  queued: number;
  dropped: number;
  purged: number;
}

/** What the list page shows of the profiler: its writer's counters, and what the store holds and keeps. */
export interface ProfilerStats extends WriterCounters {
  stored: number;
  retention: Retention | undefined;
}

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

export class ReportWriter {
  private readonly queue: WriteQueue;
  private timer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** A drain of the queue is chained on `writing` and has not started yet. */
  private drainChained = false;
  /** The store cannot be reached: the next attempt waits for this timer. */
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly storeBackoff: Backoff;
  private droppedCount = 0;
  /** Called when `queued`, `dropped` or `purged` changed, for another process to be told at once. */
  onCountersChange: (() => void) | undefined;
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
  private lastDropReason = '';
  private readonly dropWarnings = new Throttle(() => this.warnDropped(), DROP_WARNING_INTERVAL_MS);
  private purgeTimer: NodeJS.Timeout | undefined;
  private readonly failures: PacedFailureLog;
  private writeFailing = false;
  private readonly retentionBackoff = new Backoff(RETENTION_RETRY_FIRST_MS, RETENTION_RETRY_MAX_MS);
  private closed = false;
  private readonly flushDelayMs: number;

  constructor(
    private readonly store: ReportStore,
    private readonly options: ReportWriterOptions,
  ) {
    this.queue = new WriteQueue({
      maxReports: options.maxQueue ?? 20_000,
      maxBytes: options.maxQueueBytes ?? MAX_QUEUE_BYTES,
      batchSize: options.batchSize ?? 1000,
      maxBatchBytes: options.maxBatchBytes ?? MAX_BATCH_BYTES,
    });
    this.storeBackoff = new Backoff(
      options.retryFirstMs ?? STORE_RETRY_FIRST_MS,
      options.retryMaxMs ?? STORE_RETRY_MAX_MS,
    );
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

  /** Reports accepted and not yet stored or dropped: waiting, or in a write under way. */
  get queued(): number {
    return this.queue.held;
  }

  /** Why no report can be queued now (the queue is full, the writer closed), or undefined when one can. */
  refusal(): string | undefined {
    return this.closed ? 'the writer is closed' : this.queue.refusal(0);
  }

  enqueue(report: Report): void {
    const full = this.refusal();
    if (full) return this.discard(1, full);
    let encoded: EncodedReport;
    try {
      // Encoded as it is queued: the serializing is spread over the requests instead of stalling the
      // response path for a whole batch, and only strings wait in the queue, not a report's objects.
      encoded = encodeReport(report, this.options.redactor);
    } catch (error) {
      this.discard(1, `one could not be serialized (${(error as Error).message})`);
      return;
    }
    const tooLarge = this.queue.refusal(sizeOf(encoded));
    if (tooLarge) return this.discard(1, tooLarge);
    this.queue.push(encoded);
    this.onCountersChange?.();
    // While the store cannot be reached, the retry timer writes the queue: no attempt per report.
    if (this.retryTimer) return;
    this.flushSoon(this.queue.batchReady ? 0 : this.flushDelayMs);
  }

  /** A report accepted but not yet written, so it can be read at once. */
  pending(token: string): Report | undefined {
    const encoded = this.queue.get(token);
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
    if (!this.queue.empty && !this.drainChained) {
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
    const left = this.queue.discardWaiting();
    if (left > 0) this.discard(left, 'the report store was unavailable when the writer closed');
    // What stays behind is within the retention, as if the service had gone on: this last
    // run does not wait for the lease. Then the lease is given up, for another process to take.
    await this.enforceRetention(true);
    if (this.options.retention) await this.store.releaseRetention(this.holder).catch(() => undefined);
    this.dropWarnings.flush();
    this.failures.flush();
  }

  private flushSoon(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), delayMs);
    this.timer.unref();
  }

  /**
   * Writes the reports queued when it starts, in batches, oldest first, or until the store
   * cannot be reached. Reports queued meanwhile are the next drain's: under a load the store
   * cannot keep up with, a flush still ends, and so does the page that waits for it.
   */
  private async drain(): Promise<void> {
    for (let left = this.queue.length; left > 0 && !this.queue.empty; ) {
      const batch = this.queue.takeBatch();
      left -= batch.length;
      try {
        // With the number to keep, the store deletes the oldest as it takes new ones: it never holds more
        // than the retention, however many batches come between runs, whichever process writes it.
        const { rejected, failed, deleted = 0 } = await this.store.write(batch, this.options.retention?.maxReports);
        this.writtenCount += batch.length - rejected.length - failed.length;
        this.storedCount += batch.length - rejected.length - failed.length - deleted;
        this.writeSucceeded();
        this.purgedCount += deleted;
        // A stored report is never overwritten: the newcomer is counted, never written over it.
        if (rejected.length > 0) this.discard(rejected.length, 'their tokens were already stored');
        if (failed.length > 0) {
          this.failures.failed(
            REPORTS_REFUSED,
            `${failed.length} of ${batch.length}, the first: ${describeFailure(failed[0]!.error)}`,
          );
          this.discard(failed.length, 'the store refused them');
        }
      } catch (error) {
        if (error instanceof ReportStoreUnavailableError) {
          // The batch waits at the head of the queue; the next attempt waits for the backoff.
          this.queue.putBack(batch);
          this.storeUnavailable(error);
          return;
        }
        this.writeFailing = true;
        this.failures.failed(WRITE_FAILED, describeFailure(error));
        this.queue.release(batch);
        this.discard(batch.length, 'the store failed');
        continue;
      }
      this.queue.release(batch);
      this.onCountersChange?.();
    }
    const retention = this.options.retention;
    if (!retention) return;
    const over = this.storedCount - retention.maxReports;
    const now = Date.now();
    if (
      (over > Math.floor(retention.maxReports * PURGE_SLACK) && now >= this.heldElsewhereUntil) ||
      now - this.lastPurge >= PURGE_INTERVAL_MS
    ) {
      await this.enforceRetention();
    } else if (over > 0 && !this.purgeTimer && !this.closed) {
      this.purgeTimer = setTimeout(() => {
        this.purgeTimer = undefined;
        this.writing = this.writing.then(() => this.enforceRetention());
      }, PURGE_INTERVAL_MS).unref();
    }
  }

  /**
   * Runs the retention, unless another process holds the lease; `final` runs it regardless. It follows
   * the batches, at least every second, and runs every minute when idle; a failing run waits out a
   * backoff, and failures are logged at most once a second per kind, with counts.
   */
  private async enforceRetention(final = false): Promise<void> {
    const retention = this.options.retention;
    if (!retention || !this.retentionBackoff.ready(Date.now())) return;
    try {
      const deleted = await this.store.purge(
        retention,
        final ? {} : { lease: { holder: this.holder, ms: this.retentionLeaseMs } },
      );
      this.lastPurge = Date.now();
      if (deleted === undefined) {
        this.skippedCount++;
        this.heldElsewhereUntil = this.lastPurge + PURGE_INTERVAL_MS;
        this.retentionBackoff.succeeded();
        this.failures.succeeded(RETENTION_FAILED);
        return;
      }
      this.purgedCount += deleted;
      this.onCountersChange?.();
      this.storedCount = await this.store.count();
      this.retentionBackoff.succeeded();
      this.failures.succeeded(RETENTION_FAILED);
    } catch (error) {
      const waitMs = this.retentionBackoff.failed(Date.now());
      this.failures.failed(RETENTION_FAILED, `${describeFailure(error)} (next run in ${waitMs / 1000} s)`);
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
    this.failures.failed(
      WRITE_FAILED,
      `${error.message} (${this.queue.length} reports wait; next attempt in ${waitMs / 1000} s)`,
    );
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
    this.onCountersChange?.();
    // Drops within the interval are reported together once it is over.
    this.dropWarnings.call();
  }

  private warnDropped(): void {
    this.options.log.warn(
      { dropped: this.droppedCount },
      `Debug reports dropped because ${this.lastDropReason}: ${this.droppedCount} since start`,
    );
  }
}
