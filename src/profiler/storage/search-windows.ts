/**
 * How a search by URL or IP part reads, in both stores: its reports newest first, each with
 * its id, and when it has a budget, where it stopped once the budget was spent. It looks at
 * the time after each report it keeps, after each window of 4096 ids, and after each 4096
 * reports it read and did not keep, so that no step reads more than a window's worth of
 * reports (in a large store they come from disk, and a filter no report meets would
 * otherwise make one step of the whole store).
 */
import { performance } from 'node:perf_hooks';
import type { ListedReport, SearchResult } from '../model/report.js';

export const WINDOW = 4096;

/** Ids in `(low, high]`. */
interface IdWindow {
  high: number;
  low: number;
}

export class IdWindows {
  private readonly width: number;

  /**
   * `high`: the newest id to read; `lowest`: the windows end above it. Without `budgetMs`,
   * one window holds every id.
   */
  constructor(
    private high: number,
    budgetMs: number | undefined,
    private readonly lowest = 0,
  ) {
    this.width = budgetMs === undefined ? Number.MAX_SAFE_INTEGER : WINDOW;
  }

  /** The next window, or undefined once the oldest id was read. */
  next(): IdWindow | undefined {
    if (this.high <= this.lowest) return undefined;
    const window = { high: this.high, low: Math.max(this.lowest, this.high - this.width) };
    this.high = window.low;
    return window;
  }
}

/**
 * A row read by a search: its id, and `hit` when the row says whether it meets the filters
 * (a row without it does). A row that does not is read and counted, not kept.
 */
export type ReadRow = { id: number; hit?: unknown };

/** The rows a search has kept, newest first, and where it stopped when its budget ran out first. */
export class NewestFirstReading<Row extends ReadRow = ListedReport & { id: number }> {
  private readonly rows: Row[] = [];
  private readonly started: number;
  private stoppedAt: number | undefined;
  /** Rows read and not kept since the time was last looked at. */
  private passed = 0;

  constructor(
    private readonly limit: number,
    private readonly budgetMs: number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  wanted(): number {
    return this.limit - this.rows.length;
  }

  /**
   * Reads `rows` until the limit or the budget. `floor`: once the rows run out, every id from
   * it up has been read. True when the search reads on below `floor`; `mayStop` false when
   * running out of `rows` is no progress (the tail may have none).
   */
  take(rows: Iterable<Row>, floor: number, mayStop = true): boolean {
    for (const row of rows) {
      if ('hit' in row && !row.hit) {
        if (++this.passed < WINDOW) continue;
        this.passed = 0;
        if (this.spent()) return this.stop(row.id);
        continue;
      }
      this.rows.push(row);
      if (this.rows.length >= this.limit) return false;
      if (this.spent()) return this.stop(row.id);
    }
    this.passed = 0;
    if (floor <= 1) return false;
    return mayStop && this.spent() ? this.stop(floor) : true;
  }

  /** The rows kept, newest first, with their ids. */
  kept(): readonly Row[] {
    return this.rows;
  }

  /** Where a search goes on, when its budget ran out before its end. */
  continueBelow(): number | undefined {
    return this.stoppedAt;
  }

  /** The rows kept as summaries, without their ids. */
  result(this: NewestFirstReading<ListedReport & { id: number }>): SearchResult {
    const reports = this.rows.map(({ id: _, ...summary }) => summary);
    return this.stoppedAt === undefined ? { reports } : { reports, continueBelow: this.stoppedAt };
  }

  private stop(below: number): false {
    this.stoppedAt = below;
    return false;
  }

  private spent(): boolean {
    return this.budgetMs !== undefined && this.now() - this.started >= this.budgetMs;
  }
}
