/** Reports built by hand, for tests of the store and the writer that need exact times and fields. */
import type { Report } from '../../src/profiler/model/report.js';
import { encodeReport, type EncodedReport } from '../../src/profiler/model/report-encoding.js';

export const T0 = Date.UTC(2026, 0, 2, 10, 0, 0);

export function report(token: string, overrides: Partial<Report> = {}): Report {
  return {
    token,
    time: T0,
    method: 'GET',
    url: 'https://localhost:8443/robots.txt',
    status: 404,
    ip: '127.0.0.1',
    duration: 1.5,
    collectors: { request: { method: 'GET' } },
    ...overrides,
  };
}

/** Reports as the writer hands them to a store. */
export function encoded(reports: Report[]): EncodedReport[] {
  return reports.map((report) => encodeReport(report));
}
