/**
 * How long the primary waits before it replaces a worker that died: a wait that doubles
 * with each worker that dies soon after it started, up to a bound, so that a crash loop (a
 * worker that cannot start, a request that kills every worker) does not spin. A worker that
 * had served for a while dies alone: the wait starts again from the first.
 */
import { Backoff } from '../utils/backoff.js';

interface RestartPacingOptions {
  /** The first wait (100 ms), doubled with each worker that dies soon after it started... */
  firstMs?: number;
  /** ...up to this (10 s). */
  maxMs?: number;
  /** A worker that served this long had not been caught in a loop. */
  stableMs?: number;
}

/**
 * The waits of one primary.
 *
 * @example
 *   const pacing = new RestartPacing();
 *   pacing.exited(undefined); // -> 100 (it never served)
 *   pacing.exited(undefined); // -> 200
 *   pacing.exited(60_000);    // -> 100 (it had served a minute)
 */
export class RestartPacing {
  private readonly backoff: Backoff;
  private readonly stableMs: number;

  constructor(options: RestartPacingOptions = {}) {
    this.backoff = new Backoff(options.firstMs ?? 100, options.maxMs ?? 10_000);
    this.stableMs = options.stableMs ?? 30_000;
  }

  /** A worker exited after serving `servedMs` (undefined: it never listened); returns the wait before its replacement. */
  exited(servedMs: number | undefined): number {
    if (servedMs !== undefined && servedMs >= this.stableMs) this.backoff.succeeded();
    return this.backoff.failed(0);
  }
}
