import type { ReportFacts } from './report-facts.js';

/**
 * The debug report of one request: a summary that is searched on, and one section per
 * collector (request, response, exception, ...) that the pages show as panels.
 */
export interface ReportSummary {
  token: string;
  /** When the request arrived, epoch milliseconds. */
  time: number;
  method: string;
  /** Full URL, query string included. */
  url: string;
  status: number;
  ip: string;
  /** Milliseconds from arrival to the last byte of the response. */
  duration: number;
}

export interface Report extends ReportSummary {
  /** Each collector's section, under the collector's name. */
  collectors: Record<string, unknown>;
}

/** What stands in a section's place when its collector failed, or its section could not be kept. */
interface CollectorError {
  collectorError: string;
}

/** The section is a collector's failure, not its data. */
export function isCollectorError(section: unknown): section is CollectorError {
  return typeof section === 'object' && section !== null && 'collectorError' in section;
}

/** Search filters, with Symfony's meaning; absent filters match everything. */
export interface ReportSearch {
  /** Substring of the client IP (`192.168.` finds a network). */
  ip?: string | undefined;
  /** Exact, case-insensitive. */
  method?: string | undefined;
  statusCode?: number | undefined;
  /** Substring of the URL. */
  url?: string | undefined;
  /** Token prefix. */
  token?: string | undefined;
  /** Epoch milliseconds, inclusive. */
  start?: number | undefined;
  end?: number | undefined;
  limit?: number | undefined;
  /** The exception's class, exactly (`TypeError`). */
  exception?: string | undefined;
  /** The exception's fingerprint: one group of the exceptions page. */
  fingerprint?: string | undefined;
  /** The pattern of the route that answered, exactly (`/api/products/:id`). */
  route?: string | undefined;
  /** Milliseconds, inclusive. */
  minDuration?: number | undefined;
  /** Leaves out a browser's own requests (`favicon.ico`, `apple-touch-icon*`, `.well-known/*`). */
  hideAssets?: boolean | undefined;
  /** Only reports stored before this position: where a {@link SearchResult} left off. */
  before?: number | undefined;
  /**
   * About how long the search may read before it answers with what it found and where it
   * stopped (`continueBelow`); without it, the search reads until it has `limit` reports or
   * has read them all.
   */
  budgetMs?: number | undefined;
}

/** A report as a search lists it: its summary and the facts kept beside it (null in reports stored before them). */
export type ListedReport = ReportSummary & ReportFacts;

/** A search's reports, newest first. */
export interface SearchResult {
  reports: ListedReport[];
  /**
   * Set when the search stopped at its budget before reading the oldest reports: they are
   * searched by the same filters with `before` set to this.
   */
  continueBelow?: number | undefined;
}

/** The reports that raised one exception (one fingerprint), among the newest reports with an exception. */
export interface ExceptionGroupSummary {
  fingerprint: string;
  /** The exception's class. */
  exception: string;
  count: number;
  /** When the oldest and the newest of them arrived, epoch milliseconds. */
  firstSeen: number;
  lastSeen: number;
  /** Their statuses, ascending. */
  statuses: number[];
  /** Their routes as `METHOD pattern`, or `METHOD` alone when no route answered; sorted. */
  routes: string[];
  /** The newest one's token. */
  newest: string;
}

/** Which groups: those among the `window` newest reports with an exception (a browser's own requests left out), the `limit` most recently seen. */
export interface ExceptionGroupQuery {
  window: number;
  limit: number;
}
