/**
 * The overview of a profiler: every finished request counted in this process, the counts
 * flushed to the store every {@link FLUSH_MS}, and a window read back as the store's minutes
 * of every process plus what this one has not written yet.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { OverviewSample } from './overview/minute-counts.js';
import { MINUTE_MS, OverviewRecorder } from './overview/overview-recorder.js';
import { OVERVIEW_WINDOWS, type OverviewSummary, type OverviewWindow, summarize } from './overview/overview-summary.js';
import { HOUR_SPAN, hourOf, type ReportStore } from './storage/report-store.js';

/** How often counts go to the store: what a crash loses at most. */
const FLUSH_MS = 10_000;
/** A flush at close waits this long for the store, then lets the counts go. */
const CLOSE_WAIT_MS = 1_000;

interface OverviewOptions {
  store: ReportStore;
  /** Minutes older than this are deleted as new ones are written. */
  retentionMs: number;
  /** Said once when the store cannot be written and minutes start to be dropped. */
  warn: (message: string) => void;
  flushMs?: number;
}

export class ProfilerOverview {
  private readonly recorder = new OverviewRecorder();
  /** This process's rows in the store: its parts of a minute are added up there, never another's. */
  private readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private droppedSaid = 0;

  constructor(private readonly options: OverviewOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.options.flushMs ?? FLUSH_MS);
    this.timer.unref();
  }

  record(sample: OverviewSample): void {
    this.recorder.record(sample);
  }

  /** Writes what was counted since the last flush; a flush under way is waited for, not doubled. */
  flush(now = Date.now()): Promise<void> {
    if (this.flushing !== undefined) return this.flushing;
    const minutes = this.recorder.take();
    if (minutes.length === 0) return Promise.resolve();
    const minute = Math.floor(now / MINUTE_MS);
    const upkeep = {
      // Whole hours past the last one: minutes of the last hour or two stay minutes, for the hour's window.
      hourlyBefore: hourOf(minute - HOUR_SPAN),
      deleteBefore: Math.floor((now - this.options.retentionMs) / MINUTE_MS),
    };
    this.flushing = this.options.store
      .writeOverview(this.holder, minutes, upkeep)
      .catch(() => {
        this.recorder.giveBack(minutes);
        this.sayDropped();
      })
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  /** The last hour, day or week: the store's minutes of every process, and this one's not yet written. */
  async summary(window: OverviewWindow, now = Date.now()): Promise<OverviewSummary> {
    const from = Math.floor(now / MINUTE_MS) - OVERVIEW_WINDOWS[window] + 1;
    const stored = await this.options.store.readOverview(from);
    const unwritten = this.recorder
      .unwritten()
      .filter((minute) => minute.minute >= from)
      .map((minute) => minute.counts);
    return summarize(window, [stored, ...unwritten]);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      this.flush(),
      new Promise<void>((resolve) => {
        waited = setTimeout(resolve, CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(waited);
  }

  private sayDropped(): void {
    const dropped = this.recorder.droppedMinutes;
    if (dropped === 0 || this.droppedSaid > 0) return;
    this.droppedSaid = dropped;
    this.options.warn(
      `vigil: the overview's counts cannot be written to the report store; minutes older than an hour are dropped (${dropped} so far)`,
    );
  }
}
