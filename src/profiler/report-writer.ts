/**
 * Writes reports after their responses, in batches, off the response's critical path.
 *
 * The queue is bounded: when the store cannot keep up, new reports are dropped, counted
 * and logged (never silently), and their tokens handed back. Close flushes what is queued.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Report } from './report.js';
import type { ReportStore } from './storage/report-store.js';

export interface ReportWriterOptions {
  /** Reports waiting at most; beyond it new ones are dropped. */
  maxQueue?: number;
  /** Reports per transaction at most. */
  batchSize?: number;
  /** How long a report may wait for companions before its batch is written. */
  flushDelayMs?: number;
  log: FastifyBaseLogger;
  /** Called with tokens that are free again: their reports were dropped before being stored. */
  onDiscard: (tokens: string[]) => void;
}

export class ReportWriter {
  private queue: Report[] = [];
  private readonly pendingByToken = new Map<string, Report>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private droppedCount = 0;
  private writtenCount = 0;
  private lastDropWarning = 0;
  private closed = false;
  private readonly maxQueue: number;
  private readonly batchSize: number;
  private readonly flushDelayMs: number;

  constructor(private readonly store: ReportStore, private readonly options: ReportWriterOptions) {
    this.maxQueue = options.maxQueue ?? 20_000;
    this.batchSize = options.batchSize ?? 1000;
    this.flushDelayMs = options.flushDelayMs ?? 20;
  }

  /** Reports dropped or rejected since start. */
  get dropped(): number {
    return this.droppedCount;
  }

  get written(): number {
    return this.writtenCount;
  }

  get queued(): number {
    return this.pendingByToken.size;
  }

  enqueue(report: Report): void {
    if (this.closed || this.pendingByToken.size >= this.maxQueue) {
      this.discard([report.token], this.closed ? 'the writer is closed' : `the write queue is full (${this.maxQueue} reports)`);
      return;
    }
    this.queue.push(report);
    this.pendingByToken.set(report.token, report);
    if (this.queue.length >= this.batchSize) this.flushSoon(0);
    else this.flushSoon(this.flushDelayMs);
  }

  /** A report accepted but not yet written, so it can be read at once. */
  pending(token: string): Report | undefined {
    return this.pendingByToken.get(token);
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
    await this.flush();
  }

  private flushSoon(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), delayMs);
    this.timer.unref();
  }

  private async writeBatches(reports: Report[]): Promise<void> {
    for (let i = 0; i < reports.length; i += this.batchSize) {
      const batch = reports.slice(i, i + this.batchSize);
      try {
        const { rejected, failed } = await this.store.write(batch);
        this.writtenCount += batch.length - rejected.length - failed.length;
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
  }

  private discard(tokens: string[], why: string, releaseTokens = true): void {
    this.droppedCount += tokens.length;
    if (releaseTokens) this.options.onDiscard(tokens);
    const now = Date.now();
    if (now - this.lastDropWarning >= 1000) {
      this.lastDropWarning = now;
      this.options.log.warn({ dropped: this.droppedCount }, `Debug reports dropped because ${why}: ${this.droppedCount} since start`);
    }
  }
}
