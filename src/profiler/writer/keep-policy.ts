/**
 * Which production reports are kept, decided as each request ends (tail sampling): by its
 * outcome (PROFILER_KEEP: an error, a slow request, or all), else by a random share of the
 * rest (PROFILER_SAMPLE), and always within a bound per second (PROFILER_KEEP_MAX_PER_SECOND),
 * so that a burst of errors costs a bounded share of the process. The ones over the bound are
 * counted, and said in one log line per minute.
 */
import { Throttle } from '../../utils/throttle.js';
import { TokenBucket } from '../../utils/token-bucket.js';

export interface KeepSettings {
  /** PROFILER_KEEP: `all`, `errors`, `slow`; empty for none. */
  outcomes: ReadonlyArray<'all' | 'errors' | 'slow'>;
  /** PROFILER_SAMPLE: share of the others kept. */
  sample: number;
  /** PROFILER_SLOW_REQUEST, in milliseconds. */
  slowMs: number;
  /** PROFILER_KEEP_MAX_PER_SECOND. */
  maxPerSecond: number;
}

/** How a request ended, as the decision reads it. */
interface Outcome {
  /** A 5xx answer, or an error that reached the pipeline as one (its answer may have been cut). */
  failed: boolean;
  durationMs: number;
}

/** How often the reports over the bound are said. */
const OVER_BOUND_LOG_MS = 60_000;

export class KeepPolicy {
  /** An error is reason enough: the pipeline may decide at the error, and its log line name the token. */
  readonly keepsErrors: boolean;
  private readonly keepsAll: boolean;
  private readonly keepsSlow: boolean;
  private readonly bound: TokenBucket;
  /** Reports over the bound since start, and since the last line said so. */
  overBound = 0;
  private unsaid = 0;
  private readonly say: Throttle;

  constructor(
    private readonly settings: KeepSettings,
    warn: (message: string) => void,
    private readonly random: () => number = Math.random,
  ) {
    this.keepsAll = settings.outcomes.includes('all');
    this.keepsErrors = this.keepsAll || settings.outcomes.includes('errors');
    this.keepsSlow = !this.keepsAll && settings.outcomes.includes('slow');
    this.bound = new TokenBucket(settings.maxPerSecond);
    this.say = new Throttle(() => {
      const count = this.unsaid;
      this.unsaid = 0;
      if (count > 0)
        warn(
          `vigil: ${count} report${count === 1 ? '' : 's'} not kept: over PROFILER_KEEP_MAX_PER_SECOND (${settings.maxPerSecond})`,
        );
    }, OVER_BOUND_LOG_MS);
  }

  /** True when some request may be kept: PROFILER_KEEP other than none, or a share sampled. */
  get keepsAny(): boolean {
    return this.settings.outcomes.length > 0 || this.settings.sample > 0;
  }

  /** Whether the report of a request that ended so is kept; a report over the bound is counted, not kept. */
  keeps({ failed, durationMs }: Outcome): boolean {
    const wanted =
      this.keepsAll ||
      (failed && this.keepsErrors) ||
      (this.keepsSlow && durationMs > this.settings.slowMs) ||
      (this.settings.sample > 0 && this.random() < this.settings.sample);
    return wanted && this.admit();
  }

  /** One more kept report, within the bound: false (and counted) over it. */
  admit(): boolean {
    if (this.bound.take()) return true;
    this.overBound++;
    this.unsaid++;
    this.say.call();
    return false;
  }

  /** Says the count not said yet (at shutdown). */
  flush(): void {
    this.say.flush();
  }
}
