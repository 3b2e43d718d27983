/**
 * Debug tokens: 6 lower-case hex characters, unique among the reports a store keeps, across
 * every process that writes it.
 *
 * The store leases tokens in blocks (`ReportStore.leaseTokens`: a keyed permutation of a
 * counter the store keeps, see `token-permutation.ts`); a {@link TokenSource} hands them out
 * one by one and leases the next block when half of what it holds is used. So no process
 * remembers the tokens in use, and a request waits on the store only when none is at hand:
 * at start, or when a burst outruns a lease (the leases that follow are then larger).
 * A lease that fails (a full disk) costs the requests waiting for it their token, and the
 * next request tries again. When the store cannot be reached (a database server that is
 * down, where a lease may take seconds to fail: `backOff` says which failures), requests
 * wait for none: a request that finds no token goes without one, and the lease is tried
 * again after a delay that doubles with each failure (100 ms, 200 ms... up to 5 s), started
 * by the first request after it. The first lease that succeeds brings the tokens back.
 *
 * @example
 *   const tokens = new TokenSource((count) => store.leaseTokens(count));
 *   await tokens.fill();
 *   tokens.issue(); // -> '3fa41c', or undefined when none is at hand: then `await tokens.take()`
 */
export const TOKEN_PATTERN = /^[0-9a-f]{6}$/;

/** Asks the store for `count` fresh tokens; it may give fewer (it skips tokens still held by stored reports). */
export type LeaseTokens = (count: number) => Promise<string[]>;

export interface TokenSourceOptions {
  /** Tokens asked for in one lease at first (256). */
  blockSize?: number;
  /** Leases grow up to this many after the tokens ran out (4096). */
  maxBlockSize?: number;
  /** True for a failure after which requests stop waiting for leases until a delay is over (the store cannot be reached). */
  backOff?: (error: Error) => boolean;
  /** After such a failure, the next lease waits this long (100 ms), then twice as long after each failure... */
  retryFirstMs?: number;
  /** ...up to this (5 s). */
  retryMaxMs?: number;
  /** The clock, in milliseconds (tests set it by hand). */
  now?: () => number;
  /** Called with each failed lease. */
  onLeaseFailed?: (error: Error) => void;
  /** Called when a lease succeeds after failures. */
  onLeaseRecovered?: () => void;
}

export class TokenSource {
  private tokens: string[] = [];
  private next = 0;
  private leasing: Promise<boolean> | undefined;
  /** The lease under way was asked for while tokens were still at hand. */
  private ahead = false;
  /** The tokens ran out while a lease asked for ahead was under way. */
  private dry = false;
  /** The last lease failed. */
  private failing = false;
  /** Leases that failed in a row with failures `backOff` takes (0: the source is not backing off). */
  private backoffs = 0;
  /** While backing off: when the next lease may start. */
  private retryAt = 0;
  private size: number;
  private readonly maxBlockSize: number;
  private readonly now: () => number;

  constructor(private readonly lease: LeaseTokens, private readonly options: TokenSourceOptions = {}) {
    this.size = options.blockSize ?? 256;
    this.maxBlockSize = Math.max(options.maxBlockSize ?? 4096, this.size);
    this.now = options.now ?? Date.now;
  }

  /** Tokens at hand. */
  get available(): number {
    return this.tokens.length - this.next;
  }

  /** Tokens the next lease asks for. */
  get blockSize(): number {
    return this.size;
  }

  /** A token at once, or undefined when none is at hand (see {@link take}). Leases ahead as needed. */
  issue(): string | undefined {
    if (this.next < this.tokens.length) {
      const token = this.tokens[this.next++];
      if (this.tokens.length - this.next <= this.size >> 1) this.leaseAhead();
      return token;
    }
    const late = this.leasing !== undefined && this.ahead;
    this.leaseAhead();
    if (late && !this.dry) {
      // A burst outran the lease asked for ahead: the leases that follow are larger.
      this.dry = true;
      this.size = Math.min(this.size * 2, this.maxBlockSize);
    }
    return undefined;
  }

  /**
   * A token, waiting for the lease under way (or a new one) if need be; undefined when that
   * lease failed. Requests that wait together wait for one lease: a failing store (a full
   * disk) sees one attempt at a time, and the first request after it recovers gets a token.
   * While the source backs off, none waits: undefined at once.
   */
  async take(): Promise<string | undefined> {
    for (;;) {
      const token = this.issue();
      if (token !== undefined) return token;
      if (this.backoffs > 0 || !(await this.fill())) return undefined;
    }
  }

  /** Leases unless tokens are at hand; resolves true when some are. */
  async fill(): Promise<boolean> {
    if (this.available > 0) return true;
    this.leaseAhead();
    return (await this.leasing) ?? false;
  }

  private leaseAhead(): void {
    if (this.leasing || (this.backoffs > 0 && this.now() < this.retryAt)) return;
    this.ahead = this.next < this.tokens.length;
    this.leasing = this.lease(this.size).then(
      (leased) => {
        this.tokens = this.next === this.tokens.length ? leased : this.tokens.slice(this.next).concat(leased);
        this.next = 0;
        this.dry = false;
        this.leasing = undefined;
        this.backoffs = 0;
        if (this.failing) {
          this.failing = false;
          this.options.onLeaseRecovered?.();
        }
        return leased.length > 0;
      },
      (thrown: unknown) => {
        const error = thrown instanceof Error ? thrown : new Error(String(thrown));
        this.leasing = undefined;
        this.failing = true;
        if (this.options.backOff?.(error)) {
          const delay = (this.options.retryFirstMs ?? 100) * 2 ** Math.min(this.backoffs, 30);
          this.retryAt = this.now() + Math.min(delay, this.options.retryMaxMs ?? 5000);
          this.backoffs++;
        } else {
          this.backoffs = 0;
        }
        this.options.onLeaseFailed?.(error);
        return false;
      },
    );
  }
}
