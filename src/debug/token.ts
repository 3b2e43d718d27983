/**
 * Debug tokens: 6 lower-case hex characters, unique among the stored reports.
 *
 * The issuer remembers every token in use (stored or waiting to be written) and draws
 * again on a clash, so two requests never share a report. Retention hands tokens back
 * with {@link TokenIssuer.release}.
 */
import { randomFillSync } from 'node:crypto';

export const TOKEN_PATTERN = /^[0-9a-f]{6}$/;
const TOKEN_SPACE = 0x1000000;

export class TokenIssuer {
  private readonly taken: Set<string>;
  private readonly pool = new Uint8Array(3 * 1024);
  private offset = this.pool.length;

  /** `draw` replaces the random source, for tests that need to know the next draws. */
  constructor(taken: Iterable<string> = [], draw?: () => string) {
    this.taken = new Set(taken);
    if (draw) this.draw = draw;
  }

  /** A fresh token, reserved until released. */
  issue(): string {
    if (this.taken.size >= TOKEN_SPACE / 2) {
      throw new Error('More than 8 million debug reports are kept: lower PROFILER_MAX_REPORTS');
    }
    for (;;) {
      const token = this.draw();
      if (!this.taken.has(token)) {
        this.taken.add(token);
        return token;
      }
    }
  }

  /** Frees tokens whose reports were deleted or never written. */
  release(tokens: Iterable<string>): void {
    for (const token of tokens) this.taken.delete(token);
  }

  get size(): number {
    return this.taken.size;
  }

  private draw = (): string => {
    if (this.offset === this.pool.length) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const value = (this.pool[this.offset]! << 16) | (this.pool[this.offset + 1]! << 8) | this.pool[this.offset + 2]!;
    this.offset += 3;
    return value.toString(16).padStart(6, '0');
  };
}
