/**
 * How a search by URL or IP part reads, in both stores: its reports newest first, each with
 * its id, and when it has a budget, where it stopped once the budget was spent: between two
 * reports, or two windows of 4096 ids (in a large store, a window's rows come from disk, and a
 * wider window could outlast the budget on its own).
 */
import { performance } from 'node:perf_hooks';
import type { ReportSummary, SearchResult } from '../model/report.js';

export const WINDOW = 4096;

/** Ids in `(low, high]`. */
export interface IdWindow {
  high: number;
  low: number;
}

export class IdWindows {
  private readonly width: number;

  /** `high`: the newest id to read. Without `budgetMs`, one window holds every id. */
  constructor(
    private high: number,
    budgetMs: number | undefined,
  ) {
    this.width = budgetMs === undefined ? Number.MAX_SAFE_INTEGER : WINDOW;
  }

  /** The next window, or undefined once the oldest id was read. */
  next(): IdWindow | undefined {
    if (this.high <= 0) return undefined;
    const window = { high: this.high, low: Math.max(0, this.high - this.width) };
    this.high = window.low;
    return window;
  }
}

/** The reports a search has read, newest first, and where it stopped when its budget ran out first. */
export class NewestFirstReading {
  private readonly reports: ReportSummary[] = [];
  private readonly started: number;
  private stoppedAt: number | undefined;

  constructor(
    private readonly limit: number,
    private readonly budgetMs: number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  wanted(): number {
    return this.limit - this.reports.length;
  }

  /**
   * Reads `rows` (each with its id) until the limit or the budget. `floor`: once the rows run
   * out, every id from it up has been read. True when the search reads on below `floor`;
   * `mayStop` false when running out of `rows` is no progress (the tail may have none).
   */
  take(rows: Iterable<unknown>, floor: number, mayStop = true): boolean {
    for (const row of rows) {
      const { id, ...summary } = row as ReportSummary & { id: number };
      this.reports.push(summary);
      if (this.reports.length >= this.limit) return false;
      if (this.spent()) return this.stop(id);
    }
    if (floor <= 1) return false;
    return mayStop && this.spent() ? this.stop(floor) : true;
  }

  result(): SearchResult {
    return this.stoppedAt === undefined
      ? { reports: this.reports }
      : { reports: this.reports, continueBelow: this.stoppedAt };
  }

  private stop(below: number): false {
    this.stoppedAt = below;
    return false;
  }

  private spent(): boolean {
    return this.budgetMs !== undefined && this.now() - this.started >= this.budgetMs;
  }
}
