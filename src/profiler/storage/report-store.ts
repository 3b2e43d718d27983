/**
 * Where reports live: the calls the profiler, the command line and the tests make on a
 * store, whatever keeps it. `store-factory.ts` picks the store from PROFILER_DSN; the
 * embedded SQLite store and the PostgreSQL store implement it, and
 * `test/profiler/store-contract.ts` is what any store must pass. Several processes may
 * write one store: its token counter and its retention lease are shared by them all.
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

export interface Retention {
  maxReports: number;
  maxAgeMs: number;
}

export interface WriteOutcome {
  rejected: string[];
  failed: Array<{ token: string; error: Error }>;
  /** How many reports were deleted to stay within `keep` (see `write`); a store that does not take `keep` leaves it out. */
  deleted?: number;
}

export interface PurgeOptions {
  /** The time retention is measured from (default: now). */
  now?: number;
  /**
   * Run only if no other holder ran the retention within the last `ms`, and hold it for the
   * next `ms`: one process purges a shared store at a time. Without it, the purge always runs.
   */
  lease?: { holder: string; ms: number };
}

/** What a write of the overview's minutes does besides, in minutes since the epoch. */
export interface OverviewUpkeep {
  /** The holder's minutes before this one are rolled up into a row per hour. */
  hourlyBefore: number;
  /** Every holder's rows that end before this minute are deleted (the overview's retention). */
  deleteBefore: number;
}

/** The minutes an hour's row spans. */
export const HOUR_SPAN = 60;

/** The first minute of the hour of `minute`. */
export function hourOf(minute: number): number {
  return minute - (minute % HOUR_SPAN);
}

export interface ReportStore {
  /** Where the store is, for messages (a file path, a URL without its password). */
  readonly location: string;
  /**
   * How long a request may wait for a token lease (default 100 ms). A store on a server that
   * may hang answers fast or not at all; the SQLite store answers from its own write thread,
   * behind the batch it is writing, so it may take longer without being out of reach.
   */
  readonly leaseWaitMs?: number;
  /** True when the store was created already: the command line reads without creating one. */
  exists(): Promise<boolean>;
  /**
   * Opens the store, creating it when absent; before this no call touches the disk or the
   * network. A store that cannot be used rejects with a `ReportStoreError` naming it; a
   * store on a server that cannot be reached now (or, for the service's SQLite store, on a
   * disk with no room) opens all the same, and each call then rejects with a
   * {@link ReportStoreUnavailableError} until it can be used again.
   */
  open(): Promise<void>;
  /**
   * Stores new reports, encoded by `encodeReport`. A token already stored is never
   * overwritten: it comes back in `rejected`. A report the store cannot take comes back in
   * `failed`; the others are stored.
   * With `keep`, the store holds at most `keep` reports afterwards: the oldest are deleted in
   * the same write, before the new ones take their room, and are counted in `deleted`. This
   * holds whoever else writes the store: it needs no retention lease.
   */
  write(reports: readonly EncodedReport[], keep?: number): Promise<WriteOutcome>;
  read(token: string): Promise<Report | undefined>;
  /**
   * Newest first: `ip` and `url` match a part, `method` (any case) and `statusCode` exactly,
   * `token` a prefix (any case), `start` and `end` inclusive; `limit` reports at most (100).
   * A store may stop at `budgetMs` and say where it did (`continueBelow`).
   */
  search(filters: ReportSearch): Promise<SearchResult>;
  /**
   * The reports with an exception grouped by fingerprint, the group seen last first: only the
   * newest `window` of them are read, so the answer costs the same in a store of millions.
   */
  exceptionGroups(query: ExceptionGroupQuery): Promise<ExceptionGroupSummary[]>;
  count(): Promise<number>;
  /**
   * Leases `count` tokens of the store's counter, in one transaction: no other lease, from
   * this process or another, gets the same counter values. Each token is the keyed
   * permutation of its counter value (`token-permutation.ts`); tokens that a stored
   * report still holds are left out, so there may be fewer than `count`.
   */
  leaseTokens(count: number): Promise<string[]>;
  /**
   * Deletes reports beyond the retention: older than `maxAgeMs`, or beyond the newest
   * `maxReports`. Resolves with how many were deleted, or undefined when another holder has
   * the lease (see {@link PurgeOptions.lease}).
   */
  purge(retention: Retention, options?: PurgeOptions): Promise<number | undefined>;
  /** Gives the retention lease up, if `holder` has it, so that another process takes it at once. */
  releaseRetention(holder: string): Promise<void>;
  /**
   * Adds the overview's minutes that the process `holder` counted to those it wrote before,
   * and keeps the store's overview within bounds (see {@link OverviewUpkeep}).
   */
  writeOverview(holder: string, minutes: readonly CountedMinute[], upkeep: OverviewUpkeep): Promise<void>;
  /** The overview's counts of every holder, added up, of the minutes (or hours) that reach minute `from` or later. */
  readOverview(from: number): Promise<MinuteCounts>;
  /** Deletes everything; resolves with how many reports were deleted. */
  clear(): Promise<number>;
  close(): Promise<void>;
}

/** A store that cannot be used (it cannot be opened, or its file is damaged): the message names it. */
export class ReportStoreError extends Error {
  override name = 'ReportStoreError';
  /** The file is damaged, rather than out of reach. */
  readonly damaged: boolean;

  constructor(
    readonly location: string,
    message: string,
    options: { cause?: unknown; damaged?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.damaged = options.damaged ?? false;
  }
}

/**
 * The store cannot be reached now (its database server is down, unreachable, or too busy
 * to answer in time): the same call may succeed later. The writer keeps its reports queued
 * and tries again; the profiler's pages answer 503.
 */
export class ReportStoreUnavailableError extends ReportStoreError {
  override name = 'ReportStoreUnavailableError';

  /** `reason`: what went wrong, in the driver's words (`connect ECONNREFUSED 10.0.0.5:5432`). */
  constructor(
    location: string,
    readonly reason: string,
    options: { cause?: unknown } = {},
  ) {
    super(location, `the report store ${location} is unavailable: ${reason}`, options);
  }
}
