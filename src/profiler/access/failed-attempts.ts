/**
 * Failed attempts at the production profiler's secret, counted per client address: past a
 * bound within a window, the address is refused without a check until the window ends. At
 * most a bounded number of addresses are remembered, the least recently failing forgotten first.
 */

export interface FailedAttemptsRule {
  /** Failures within `windowMs` after which an address is refused. */
  maxFailures: number;
  windowMs: number;
  /** Addresses remembered at most. */
  maxAddresses: number;
}

/** Ten wrong guesses in a quarter of an hour, per address; at most ten thousand addresses remembered. */
const DEFAULT_RULE: FailedAttemptsRule = { maxFailures: 10, windowMs: 15 * 60_000, maxAddresses: 10_000 };

interface Failures {
  count: number;
  /** When the first failure of the window was. */
  since: number;
}

export class FailedAttempts {
  /** In order of the last failure, oldest first: a Map keeps insertion order. */
  private readonly byAddress = new Map<string, Failures>();

  constructor(
    private readonly rule: FailedAttemptsRule = DEFAULT_RULE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Addresses remembered now. */
  get size(): number {
    return this.byAddress.size;
  }

  /** True while `address` has reached the bound within its window. */
  blocks(address: string): boolean {
    const failures = this.current(address);
    return failures !== undefined && failures.count >= this.rule.maxFailures;
  }

  /** Counts one failure of `address`; true when it is the one that reaches the bound. */
  fail(address: string): boolean {
    const failures = this.current(address) ?? { count: 0, since: this.now() };
    failures.count++;
    this.byAddress.delete(address);
    this.byAddress.set(address, failures);
    if (this.byAddress.size > this.rule.maxAddresses) {
      const oldest = this.byAddress.keys().next().value;
      if (oldest !== undefined) this.byAddress.delete(oldest);
    }
    return failures.count === this.rule.maxFailures;
  }

  /** When `address` is refused until, in ms since the epoch; undefined when it is not. */
  refusedUntil(address: string): number | undefined {
    return this.blocks(address) ? this.byAddress.get(address)!.since + this.rule.windowMs : undefined;
  }

  private current(address: string): Failures | undefined {
    const failures = this.byAddress.get(address);
    if (failures === undefined || this.now() - failures.since < this.rule.windowMs) return failures;
    this.byAddress.delete(address);
    return undefined;
  }
}
