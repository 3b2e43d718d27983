/**
 * Where reports live. The embedded SQLite store implements it; a shared store for
 * several instances implements the same few calls.
 */
import type { Report, ReportSearch, ReportSummary } from '../report.js';
import type { EncodedReport } from './report-encoding.js';

export interface Retention {
  maxReports: number;
  maxAgeMs: number;
}

export interface WriteOutcome {
  rejected: string[];
  failed: Array<{ token: string; error: Error }>;
  /** Reports deleted to stay within `keep` (see `write`); a store that does not take `keep` leaves it out. */
  deleted?: string[];
}

export interface ReportStore {
  /**
   * Stores new reports, encoded by `encodeReport`. A token already stored is never
   * overwritten: it comes back in `rejected`. A report the store cannot take comes back in
   * `failed`; the others are stored.
   * With `keep`, the store holds at most `keep` reports afterwards: the oldest are deleted in
   * the same write, before the new ones take their room, and come back in `deleted`.
   */
  write(reports: readonly EncodedReport[], keep?: number): Promise<WriteOutcome>;
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

/** A store that cannot be used (it cannot be opened, or its file is damaged): the message names it. */
export class ReportStoreError extends Error {
  override name = 'ReportStoreError';
  /** The file is damaged, rather than out of reach. */
  readonly damaged: boolean;

  constructor(readonly location: string, message: string, options: { cause?: unknown; damaged?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.damaged = options.damaged ?? false;
  }
}
