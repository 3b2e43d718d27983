/**
 * The windows of ids a search by URL or IP part reads, newest first, in both stores: the first
 * of 4096 ids, each next twice as wide. With a budget, the search stops between two windows
 * once it has read for it, and says where to go on.
 */
import { performance } from 'node:perf_hooks';

export const FIRST_WINDOW = 4096;

/** Ids in `(low, high]`. */
export interface IdWindow {
  high: number;
  low: number;
}

export class IdWindows {
  private width: number;
  private readonly started: number;

  /** `high`: the newest id to read. Without `budgetMs`, one window holds every id. */
  constructor(
    private high: number,
    private readonly budgetMs: number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
    this.width = budgetMs === undefined ? Number.MAX_SAFE_INTEGER : FIRST_WINDOW;
  }

  /** The next window, or undefined once the oldest id was read. */
  next(): IdWindow | undefined {
    if (this.high <= 0) return undefined;
    const window = { high: this.high, low: Math.max(0, this.high - this.width) };
    this.high = window.low;
    this.width = Math.min(this.width * 2, Number.MAX_SAFE_INTEGER);
    return window;
  }

  /** The `before` a search that spent its budget goes on from; undefined while it may read on, or has read all. */
  stoppedAt(): number | undefined {
    if (this.high <= 0 || this.budgetMs === undefined || this.now() - this.started < this.budgetMs) return undefined;
    return this.high + 1;
  }
}
