/**
 * The writer's queue: reports accepted and not yet stored, oldest first, bounded by count
 * and by bytes, and handed out in batches of at most a count and a size. A batch the store
 * could not take goes back to the head, in order; every report stays readable by its token
 * until it leaves (stored or dropped).
 */
import { formatBytes } from '../../utils/bytes.js';
import type { EncodedReport } from '../model/report-encoding.js';

interface WriteQueueBounds {
  /** Reports held at most, waiting or being written. */
  maxReports: number;
  /** Bytes of reports held at most. */
  maxBytes: number;
  /** Reports per batch at most. */
  batchSize: number;
  /** Bytes per batch at most (one report larger than this goes alone). */
  maxBatchBytes: number;
}

/** The bytes a report adds to a transaction, near enough (its trace is stored once per batch at most). */
export function sizeOf(report: EncodedReport): number {
  return report.data.length + report.url.length;
}

export class WriteQueue {
  /** Reports not yet handed to the store, oldest first. */
  private waiting: EncodedReport[] = [];
  private waitingBytes = 0;
  /** Every report held: waiting, or in a write under way. */
  private readonly byToken = new Map<string, EncodedReport>();
  private heldBytes = 0;

  constructor(private readonly bounds: WriteQueueBounds) {}

  /** Reports held, waiting or being written. */
  get held(): number {
    return this.byToken.size;
  }

  /** True when the reports waiting make a full batch. */
  get batchReady(): boolean {
    return this.waiting.length >= this.bounds.batchSize || this.waitingBytes >= this.bounds.maxBatchBytes;
  }

  get empty(): boolean {
    return this.waiting.length === 0;
  }

  get length(): number {
    return this.waiting.length;
  }

  /** Why a report of `size` bytes does not fit, or undefined when it does. */
  refusal(size: number): string | undefined {
    if (this.byToken.size >= this.bounds.maxReports)
      return `the write queue is full (${this.bounds.maxReports} reports)`;
    if (this.heldBytes + size > this.bounds.maxBytes)
      return `the write queue is full (${formatBytes(this.bounds.maxBytes)} of reports)`;
    return undefined;
  }

  /** Adds a report that fits (see {@link refusal}). */
  push(report: EncodedReport): void {
    const size = sizeOf(report);
    this.waiting.push(report);
    this.waitingBytes += size;
    // A token queued twice (the counter come round): the newer report is the one read back.
    const earlier = this.byToken.get(report.token);
    if (earlier) this.heldBytes -= sizeOf(earlier);
    this.byToken.set(report.token, report);
    this.heldBytes += size;
  }

  /** A report held, by its token. */
  get(token: string): EncodedReport | undefined {
    return this.byToken.get(token);
  }

  /** Takes the oldest waiting reports: at most `batchSize` of them and `maxBatchBytes` bytes (one at least). They stay held. */
  takeBatch(): EncodedReport[] {
    let count = 0;
    let bytes = 0;
    while (count < this.waiting.length && count < this.bounds.batchSize) {
      const size = sizeOf(this.waiting[count]!);
      if (count > 0 && bytes + size > this.bounds.maxBatchBytes) break;
      bytes += size;
      count++;
    }
    this.waitingBytes -= bytes;
    return this.waiting.splice(0, count);
  }

  /** A batch the store could not take: back to the head, in order. */
  putBack(batch: readonly EncodedReport[]): void {
    this.waiting.unshift(...batch);
    this.waitingBytes += batch.reduce((sum, report) => sum + sizeOf(report), 0);
  }

  /** The reports leave the queue: stored, or dropped. */
  release(reports: readonly EncodedReport[]): void {
    for (const report of reports) {
      if (this.byToken.get(report.token) !== report) continue;
      this.byToken.delete(report.token);
      this.heldBytes -= sizeOf(report);
    }
  }

  /** Empties the queue; returns how many reports were waiting. */
  discardWaiting(): number {
    const left = this.waiting.splice(0);
    this.waitingBytes = 0;
    this.release(left);
    return left.length;
  }
}
