/**
 * A write (a log line) run at most once per interval: at once when the last run is an
 * interval old, else once when the interval ends, for every call made meanwhile. The
 * caller keeps its own counts; the write reads and resets them.
 */
export class Throttle {
  private lastRun = -Infinity;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: () => void,
    private readonly intervalMs = 1000,
  ) {}

  call(): void {
    const since = Date.now() - this.lastRun;
    if (since >= this.intervalMs) this.run();
    else this.timer ??= setTimeout(() => this.run(), this.intervalMs - since).unref();
  }

  /** Runs a waiting call now (on close); nothing when none waits. */
  flush(): void {
    if (this.timer) this.run();
  }

  private run(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.lastRun = Date.now();
    this.write();
  }
}
