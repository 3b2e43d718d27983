/**
 * Production's way to the store: each request is followed, and its report decided as it
 * ends (`keep-policy.ts`), or at its error when errors are kept, so that the error's log line
 * names the token. Only a kept report takes a token from the leased block and is written.
 */
import type { TokenSource } from '../tokens/token.js';
import type { RequestProfile } from '../model/request-profile.js';
import type { Report } from '../model/report.js';
import { KeepPolicy, type KeepSettings } from './keep-policy.js';
import type { ReportWriter } from './report-writer.js';

const NO_TOKEN = 'no token could be leased from the store';

export class KeptReports {
  private readonly policy: KeepPolicy;

  constructor(
    settings: KeepSettings,
    private readonly tokens: TokenSource,
    private readonly writer: ReportWriter,
    warn: (message: string) => void,
  ) {
    this.policy = new KeepPolicy(settings, warn);
  }

  /**
   * At an error answered with a 5xx: when errors are kept, the report is kept now (within
   * the bound). The token, or undefined when none is kept or none was at hand yet.
   */
  tokenAtError(profile: RequestProfile): string | undefined {
    if (this.policy.keepsErrors && profile.kept === undefined) this.decide(profile, this.policy.admit());
    return profile.token || undefined;
  }

  /** As the request ends: whether its report is kept, decided now unless its error decided it. */
  keeps(profile: RequestProfile, status: number): boolean {
    if (profile.kept === undefined) {
      const failed = !profile.aborted && status >= 500;
      this.decide(profile, this.policy.keeps({ failed, durationMs: profile.marks.end! - profile.marks.start }));
    }
    return profile.kept!;
  }

  /** A kept report goes to the writer; one whose token was not at hand waits for the lease under way. */
  queue(report: Report): void {
    if (report.token !== '') return this.writer.enqueue(report);
    const token = this.tokens.issue();
    if (token !== undefined) return this.writer.enqueue({ ...report, token });
    this.tokens
      .take()
      .then((late) =>
        late === undefined ? this.writer.discard(1, NO_TOKEN) : this.writer.enqueue({ ...report, token: late }),
      )
      .catch(() => this.writer.discard(1, NO_TOKEN));
  }

  /** Says the reports over the bound not said yet (at shutdown). */
  flush(): void {
    this.policy.flush();
  }

  /** Kept or not, for good; a kept report takes its token when one is at hand. */
  private decide(profile: RequestProfile, kept: boolean): void {
    profile.kept = kept;
    if (kept) profile.token = this.tokens.issue() ?? '';
  }
}
