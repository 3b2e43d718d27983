const TOKEN_PATTERN = /^[0-9a-f]{6}$/;
class TokenSource {
  constructor(lease, options = {}) {
    this.lease = lease;
    this.options = options;
    this.size = options.blockSize ?? 256;
    this.maxBlockSize = Math.max(options.maxBlockSize ?? 4096, this.size);
  }
  lease;
  options;
  tokens = [];
  next = 0;
  leasing;
  /** The lease under way was asked for while tokens were still at hand. */
  ahead = false;
  /** The tokens ran out while a lease asked for ahead was under way. */
  dry = false;
  /** The last lease failed. */
  failing = false;
  size;
  maxBlockSize;
  /** Tokens at hand. */
  get available() {
    return this.tokens.length - this.next;
  }
  /** Tokens the next lease asks for. */
  get blockSize() {
    return this.size;
  }
  /** A token at once, or undefined when none is at hand (see {@link take}). Leases ahead as needed. */
  issue() {
    if (this.next < this.tokens.length) {
      const token = this.tokens[this.next++];
      if (this.tokens.length - this.next <= this.size >> 1) this.leaseAhead();
      return token;
    }
    const late = this.leasing !== void 0 && this.ahead;
    this.leaseAhead();
    if (late && !this.dry) {
      this.dry = true;
      this.size = Math.min(this.size * 2, this.maxBlockSize);
    }
    return void 0;
  }
  /**
   * A token, waiting for the lease under way (or a new one) if need be; undefined when that
   * lease failed. Requests that wait together wait for one lease: a failing store (a full
   * disk) sees one attempt at a time, and the first request after it recovers gets a token.
   */
  async take() {
    for (; ; ) {
      const token = this.issue();
      if (token !== void 0) return token;
      if (!await this.fill()) return void 0;
    }
  }
  /** Leases unless tokens are at hand; resolves true when some are. */
  async fill() {
    if (this.available > 0) return true;
    this.leaseAhead();
    return await this.leasing ?? false;
  }
  leaseAhead() {
    if (this.leasing) return;
    this.ahead = this.next < this.tokens.length;
    this.leasing = this.lease(this.size).then(
      (leased) => {
        this.tokens = this.next === this.tokens.length ? leased : this.tokens.slice(this.next).concat(leased);
        this.next = 0;
        this.dry = false;
        this.leasing = void 0;
        if (this.failing) {
          this.failing = false;
          this.options.onLeaseRecovered?.();
        }
        return leased.length > 0;
      },
      (error) => {
        this.leasing = void 0;
        this.failing = true;
        this.options.onLeaseFailed?.(error instanceof Error ? error : new Error(String(error)));
        return false;
      }
    );
  }
}
export {
  TOKEN_PATTERN,
  TokenSource
};
//# sourceMappingURL=token.js.map
