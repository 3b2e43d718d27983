/**
 * Where reports live. The embedded SQLite store implements it; a shared store for
 * several instances implements the same few calls.
 */
import type { Report, ReportSearch, ReportSummary } from '../report.js';

export interface Retention {
  maxReports: number;
  maxAgeMs: number;
}

export interface ReportStore {
  /** Stores new reports. A token already stored is never overwritten: it is returned as rejected. */
  write(reports: readonly Report[]): Promise<{ rejected: string[] }>;
  read(token: string): Promise<Report | undefined>;
  /** Newest first. */
  search(filters: ReportSearch): Promise<ReportSummary[]>;
  /** Every stored token, to keep new ones unique. */
  tokens(): Promise<string[]>;
  count(): Promise<number>;
  /** Deletes reports beyond the retention; returns their tokens. */
  purge(retention: Retention, now?: number): Promise<string[]>;
  /** Deletes everything; returns the tokens deleted. */
  clear(): Promise<string[]>;
  close(): Promise<void>;
}
