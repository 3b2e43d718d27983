/**
 * The report store as the profiler's readers see it: each report read comes out completed
 * by the collectors' read-time derivations (`Collector.derive`), while what is written,
 * searched, counted and leased goes to the store untouched.
 */
import type { Report, ReportSearch, ReportSummary } from './report.js';
import type { EncodedReport } from './storage/report-encoding.js';
import type { PurgeOptions, ReportStore, Retention, WriteOutcome } from './storage/report-store.js';

export class ReadTimeStore implements ReportStore {
  constructor(
    readonly stored: ReportStore,
    private readonly derive: (report: Report) => Report,
  ) {}

  get location(): string {
    return this.stored.location;
  }

  exists(): Promise<boolean> {
    return this.stored.exists();
  }

  open(): Promise<void> {
    return this.stored.open();
  }

  write(reports: readonly EncodedReport[], keep?: number): Promise<WriteOutcome> {
    return this.stored.write(reports, keep);
  }

  async read(token: string): Promise<Report | undefined> {
    const report = await this.stored.read(token);
    return report && this.derive(report);
  }

  search(filters: ReportSearch): Promise<ReportSummary[]> {
    return this.stored.search(filters);
  }

  count(): Promise<number> {
    return this.stored.count();
  }

  leaseTokens(count: number): Promise<string[]> {
    return this.stored.leaseTokens(count);
  }

  purge(retention: Retention, options?: PurgeOptions): Promise<number | undefined> {
    return this.stored.purge(retention, options);
  }

  releaseRetention(holder: string): Promise<void> {
    return this.stored.releaseRetention(holder);
  }

  clear(): Promise<number> {
    return this.stored.clear();
  }

  close(): Promise<void> {
    return this.stored.close();
  }
}
