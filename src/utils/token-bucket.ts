/**
 * A rate bound: at most `perSecond` takes a second on average, and a burst of at most
 * `perSecond` at once after a quiet while (a token bucket, refilled as time passes).
 *
 * @example
 *   const bound = new TokenBucket(10);
 *   bound.take(); // -> true ten times in a row, then false until time refills it
 */
export class TokenBucket {
  private tokens: number;
  private filledAt: number;

  constructor(
    private readonly perSecond: number,
    /** The clock, in milliseconds (tests set it by hand). */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = perSecond;
    this.filledAt = now();
  }

  /** True, and one token used, when one is left; false otherwise. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.filledAt) * this.perSecond) / 1000);
    this.filledAt = now;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }
}
