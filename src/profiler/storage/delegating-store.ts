/**
 * A report store that passes every call to another: the base of stores that change one
 * call and leave the rest to the real store (the profiler's read-time view; tests' faults).
 */
import type {
  ExceptionGroupQuery,
  ExceptionGroupSummary,
  Report,
  ReportSearch,
  SearchResult,
} from '../model/report.js';
import type { EncodedReport } from '../model/report-encoding.js';
import type { MinuteCounts } from '../overview/minute-counts.js';
import type { CountedMinute } from '../overview/overview-recorder.js';
import type { OverviewUpkeep, PurgeOptions, ReportStore, Retention, WriteOutcome } from './report-store.js';

export class DelegatingStore implements ReportStore {
  constructor(protected readonly inner: ReportStore) {}
  get location(): string {
    return this.inner.location;
  }
  get leaseWaitMs(): number | undefined {
    return this.inner.leaseWaitMs;
  }
  exists(): Promise<boolean> {
    return this.inner.exists();
  }
  open(): Promise<void> {
    return this.inner.open();
  }
  write(reports: readonly EncodedReport[], keep?: number): Promise<WriteOutcome> {
    return this.inner.write(reports, keep);
  }
  read(token: string): Promise<Report | undefined> {
    return this.inner.read(token);
  }
  search(filters: ReportSearch): Promise<SearchResult> {
    return this.inner.search(filters);
  }
  exceptionGroups(query: ExceptionGroupQuery): Promise<ExceptionGroupSummary[]> {
    return this.inner.exceptionGroups(query);
  }
  count(): Promise<number> {
    return this.inner.count();
  }
  leaseTokens(count: number): Promise<string[]> {
    return this.inner.leaseTokens(count);
  }
  purge(retention: Retention, options?: PurgeOptions): Promise<number | undefined> {
    return this.inner.purge(retention, options);
  }
  releaseRetention(holder: string): Promise<void> {
    return this.inner.releaseRetention(holder);
  }
  writeOverview(holder: string, minutes: readonly CountedMinute[], upkeep: OverviewUpkeep): Promise<void> {
    return this.inner.writeOverview(holder, minutes, upkeep);
  }
  readOverview(from: number): Promise<MinuteCounts> {
    return this.inner.readOverview(from);
  }
  clear(): Promise<number> {
    return this.inner.clear();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
