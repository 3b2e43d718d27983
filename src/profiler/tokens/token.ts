/**
 * Debug tokens: 6 lower-case hex characters, unique among the reports a store keeps, across
 * every process that writes it. They are leased from the store in blocks, so that no process
 * remembers the tokens in use and a request seldom waits on the store.
 */
import { Backoff } from '../../utils/backoff.js';

export const TOKEN_PATTERN = /^[0-9a-f]{6}$/;

/** Asks the store for `count` fresh tokens; it may give fewer (it skips tokens still held by stored reports). */
type LeaseTokens = (count: number) => Promise<string[]>;

interface TokenSourceOptions {
  /** Tokens asked for in one lease at first (256). */
  blockSize?: number;
  /** Leases grow up to this many after the tokens ran out (4096). */
  maxBlockSize?: number;
  /** True for a failure after which requests stop waiting for leases until a delay is over (the store cannot be reached). */
  backOff?: (error: Error) => boolean;
  /** After such a failure, the next lease starts by itself after this long (100 ms), then twice as long after each failure... */
  retryFirstMs?: number;
  /** ...up to this (1 s). */
  retryMaxMs?: number;
  /** The longest a request waits for a lease, counted from the lease's start (100 ms). */
  waitMs?: number;
  /** The clock, in milliseconds (tests set it by hand). */
  now?: () => number;
  /** Runs `run` after `ms`; returns what cancels it (tests run timers by hand). */
  timer?: (run: () => void, ms: number) => () => void;
  /** Called once per lease when a request stops waiting for it: the store did not answer within `waitMs`. */
  onLeaseStalled?: (waitMs: number) => void;
  /** Called with each failed lease. */
  onLeaseFailed?: (error: Error) => void;
  /** Called when a lease succeeds after failures. */
  onLeaseRecovered?: () => void;
}

/** A timer that does not keep the process alive. */
function backgroundTimer(run: () => void, ms: number): () => void {
  const timer = setTimeout(run, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

/**
 * Hands out the tokens the store leases (`ReportStore.leaseTokens`: a keyed permutation of a
 * counter the store keeps, see `token-permutation.ts`) one by one, and leases the next block
 * when half of what it holds is used. A request waits on the store only when none is at hand
 * (a burst outran a lease; the leases that follow are then larger), and then only for a
 * short bound (`waitMs`) counted from the lease's start: a server that hangs holds no
 * request longer than that, and once a lease is older, requests go without a token at
 * once (`onLeaseStalled` says so, once per lease). A lease that fails (a full disk) costs
 * the requests waiting for it their token, and the next request tries again. When the
 * store cannot be reached (a database server that is down: `backOff` says which failures),
 * the lease is tried again in the background after a delay that doubles with each failure,
 * up to a bound (`retryFirstMs`, `retryMaxMs`), so the tokens are back before the first
 * request after the store recovers asks for one.
 *
 * @example
 *   const tokens = new TokenSource((count) => store.leaseTokens(count));
 *   await tokens.fill();
 *   tokens.issue(); // -> '3fa41c', or undefined when none is at hand: then `await tokens.take()`
 */
export class TokenSource {
  private tokens: string[] = [];
  private next = 0;
  private leasing: Promise<boolean> | undefined;
  /** When the lease under way started, and whether a request gave up waiting for it. */
  private leaseStart = 0;
  private stallSaid = false;
  /** Cancels the background retry after a failure, when one is set. */
  private cancelRetry: (() => void) | undefined;
  private closed = false;
  /** The lease under way was asked for while tokens were still at hand. */
  private ahead = false;
  /** The tokens ran out while a lease asked for ahead was under way. */
  private dry = false;
  /** The last lease failed. */
  private failing = false;
  /** When the next lease may start after failures `backOff` takes. */
  private readonly retry: Backoff;
  private size: number;
  private readonly maxBlockSize: number;
  private readonly now: () => number;
  private readonly waitMs: number;
  private readonly timer: (run: () => void, ms: number) => () => void;

  constructor(
    private readonly lease: LeaseTokens,
    private readonly options: TokenSourceOptions = {},
  ) {
    this.size = options.blockSize ?? 256;
    this.maxBlockSize = Math.max(options.maxBlockSize ?? 4096, this.size);
    this.now = options.now ?? Date.now;
    this.waitMs = options.waitMs ?? 100;
    this.timer = options.timer ?? backgroundTimer;
    this.retry = new Backoff(options.retryFirstMs ?? 100, options.retryMaxMs ?? 1000);
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
   * A token, waiting for the lease under way (or a new one) if need be, but never past
   * `waitMs` from that lease's start; undefined when the lease failed, did not come in time,
   * or none may start yet (the source backs off). Requests that wait together wait for one
   * lease: a failing store sees one attempt at a time.
   */
  async take(): Promise<string | undefined> {
    const until = this.now() + this.waitMs;
    for (;;) {
      const token = this.issue();
      if (token !== undefined) return token;
      const leasing = this.leasing;
      if (leasing === undefined) return undefined;
      const left = Math.min(until, this.leaseStart + this.waitMs) - this.now();
      const settled = left > 0 ? await this.within(leasing, left) : 'late';
      if (settled === 'late') {
        if (this.leasing === leasing) this.stalled();
        return undefined;
      }
      if (!settled) return undefined;
    }
  }

  /** Stops the background retry; no lease starts after this. */
  close(): void {
    this.closed = true;
    this.cancelRetry?.();
    this.cancelRetry = undefined;
  }

  /** `lease`'s outcome, or 'late' when it has not come within `ms`. */
  private within(lease: Promise<boolean>, ms: number): Promise<boolean | 'late'> {
    let cancel: (() => void) | undefined;
    const late = new Promise<'late'>((resolve) => {
      cancel = this.timer(() => resolve('late'), ms);
    });
    return Promise.race([lease, late]).finally(() => cancel?.());
  }

  /** A request gave up on the lease under way: said once per lease, and its success is then news. */
  private stalled(): void {
    if (this.stallSaid) return;
    this.stallSaid = true;
    this.failing = true;
    this.options.onLeaseStalled?.(this.waitMs);
  }

  /** Leases unless tokens are at hand; resolves true when some are. */
  async fill(): Promise<boolean> {
    if (this.available > 0) return true;
    this.leaseAhead();
    return (await this.leasing) ?? false;
  }

  private leaseAhead(): void {
    if (this.closed || this.leasing || !this.retry.ready(this.now())) return;
    this.cancelRetry?.();
    this.cancelRetry = undefined;
    this.ahead = this.next < this.tokens.length;
    this.leaseStart = this.now();
    this.stallSaid = false;
    this.leasing = this.lease(this.size).then(
      (leased) => {
        this.tokens = this.next === this.tokens.length ? leased : this.tokens.slice(this.next).concat(leased);
        this.next = 0;
        this.dry = false;
        this.leasing = undefined;
        this.retry.succeeded();
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
          const delay = this.retry.failed(this.now());
          // Tried again without waiting for a request, so the tokens are back before one asks.
          if (!this.closed)
            this.cancelRetry = this.timer(() => {
              this.cancelRetry = undefined;
              this.leaseAhead();
            }, delay);
        } else {
          this.retry.succeeded();
        }
        this.options.onLeaseFailed?.(error);
        return false;
      },
    );
  }
}
