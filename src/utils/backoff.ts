/** An exponential backoff: how long to wait before retrying an operation that keeps failing. */

/** The wait before retrying an operation that failed: doubles after each failure up to a cap, and starts again after a success. */
export class Backoff {
  private failures = 0;
  private retryAt = -Infinity;

  constructor(
    private readonly firstMs: number,
    private readonly maxMs: number,
  ) {}

  ready(now: number): boolean {
    return now >= this.retryAt;
  }

  /** Records a failure at `now`; returns how long to wait before the next attempt. */
  failed(now: number): number {
    const delay = Math.min(this.firstMs * 2 ** Math.min(this.failures, 30), this.maxMs);
    this.failures++;
    this.retryAt = now + delay;
    return delay;
  }

  succeeded(): void {
    this.failures = 0;
    this.retryAt = -Infinity;
  }
}
