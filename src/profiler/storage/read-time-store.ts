/**
 * The report store as the profiler's readers see it: each report read comes out completed
 * by the collectors' read-time derivations (`Collector.derive`), while what is written,
 * searched, counted and leased goes to the store untouched.
 */
import type { Report } from '../model/report.js';
import { DelegatingStore } from './delegating-store.js';
import type { ReportStore } from './report-store.js';

export class ReadTimeStore extends DelegatingStore {
  constructor(
    stored: ReportStore,
    private readonly derive: (report: Report) => Report,
  ) {
    super(stored);
  }

  override async read(token: string): Promise<Report | undefined> {
    const report = await this.inner.read(token);
    return report && this.derive(report);
  }
}
