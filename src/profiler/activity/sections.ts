/**
 * The sections of the application's activity as stored (HTTP calls, database statements),
 * and the counts and totals their panels, their text and the toolbar share.
 */
import { formatMs } from '../model/format.js';
import { RECALLS_BETWEEN_CHECKS, TRUST_AFTER, type OutgoingCall, type StatementRecord } from './request-activity.js';

export { RUN_BEFORE_SKIP } from './request-activity.js';

/** A call as its section keeps it: its headers redacted, the start of its response body described or shown. */
export type CallEntry = Omit<OutgoingCall, 'exchange'> & {
  /** By lower-case name, secrets redacted; absent in reports written before they were kept. */
  requestHeaders?: Record<string, string | string[]>;
  responseHeaders?: Record<string, string | string[]>;
  /** The response body: the start of a textual one (redacted), or what it was; absent while none was seen. */
  responseBody?: { kind: 'text'; text: string; size: number } | { kind: string; size: number | null };
};

export interface HttpClientSection {
  calls: CallEntry[];
  /** Calls whose headers and body were seen but not kept, past the report's share for them. */
  detailsOmitted?: number;
  /** Calls beyond the per-request bound. */
  omitted: number;
}

/** A statement as its section keeps it: its text given once, in `texts`, and pointed to. */
export type StatementEntry = Omit<StatementRecord, 'text'> & {
  /** Index of its text in `texts`. */
  text: number;
};

export interface DatabaseSection {
  /** Each distinct statement text once. */
  texts: string[];
  statements: StatementEntry[];
  /** Statements beyond the per-request bound. */
  omitted: number;
  /** PROFILER_SLOW_QUERY when the report was made: slower statements are flagged. */
  slowMs: number;
}

/** `2 HTTP calls in 35.0 ms`. */
export function describeCalls(count: number, totalMs: number, noun = 'HTTP call'): string {
  return `${count} ${noun}${count === 1 ? '' : 's'} in ${formatMs(totalMs)}`;
}

export function totalDuration(entries: ReadonlyArray<{ duration: number | null }>): number {
  return entries.reduce((sum, entry) => sum + (entry.duration ?? 0), 0);
}

/** From this many runs of one statement, the badge is marked. */
export const REPEATED_WARNING = 5;

interface RepeatedGroup {
  text: number;
  count: number;
  totalMs: number;
}

/** Statements run more than once, the most repeated first. */
export function repeatedGroups(section: DatabaseSection): RepeatedGroup[] {
  const groups = new Map<number, RepeatedGroup>();
  for (const statement of section.statements) {
    const group = groups.get(statement.text) ?? { text: statement.text, count: 0, totalMs: 0 };
    group.count++;
    group.totalMs += statement.duration ?? 0;
    groups.set(statement.text, group);
  }
  return [...groups.values()].filter((group) => group.count > 1).sort((a, b) => b.count - a.count);
}

export function totalQueryMs(section: DatabaseSection): number {
  return section.statements.reduce((sum, statement) => sum + (statement.duration ?? 0), 0);
}

/** `3 queries in 12.0 ms`. */
export function describeQueries(section: DatabaseSection): string {
  const count = section.statements.length + section.omitted;
  return `${count} ${count === 1 ? 'query' : 'queries'} in ${formatMs(totalQueryMs(section))}`;
}

/** The database section as the command line prints it: the count, the repeated groups, then each statement with its line. */
export function databaseText(section: DatabaseSection): string[] {
  const lines = [describeQueries(section)];
  for (const group of repeatedGroups(section)) lines.push(`  ${group.count} identical: ${section.texts[group.text]}`);
  for (const statement of section.statements) {
    const slow = (statement.duration ?? 0) > section.slowMs ? ' (slow)' : '';
    const rows = statement.rows === null ? '' : `, ${statement.rows} ${statement.rows === 1 ? 'row' : 'rows'}`;
    lines.push(
      `  ${formatMs(statement.duration)}${slow}${rows} ${section.texts[statement.text]}${statementSite(statement)}`,
    );
  }
  return lines;
}

/** Characters of an answered error's body the command line prints, on one line. */
const ERROR_BODY_LINE = 300;

/** The HTTP client section as the command line prints it: a call answered with an error says why, from its body. */
export function httpClientText(section: HttpClientSection): string[] {
  const lines = [describeCalls(section.calls.length + section.omitted, totalDuration(section.calls))];
  for (const call of section.calls) {
    lines.push(
      `  ${call.method} ${call.url} ${call.error ?? call.status ?? 'no answer yet'} ${formatMs(call.duration)}${siteSuffix(call)}`,
    );
    const body = call.responseBody;
    if ((call.status ?? 0) >= 400 && body !== undefined && 'text' in body && body.text.trim() !== '')
      lines.push(
        `    body: ${body.text
          .slice(0, ERROR_BODY_LINE * 2)
          .replace(/\s+/g, ' ')
          .trim()
          .slice(0, ERROR_BODY_LINE)}`,
      );
  }
  return lines;
}

/** Said of a statement whose stack was not looked at, after the line of those before it. */
export const NOT_LOOKED_UP = 'as the identical statements before it, not looked up';
/** Said of a call whose line was recalled from earlier requests to its route (`RequestActivity.siteFor`). */
export const RECALLED = 'as on earlier requests to this route, not looked up';
/** Why some lines are recalled, under a panel that shows one. */
export const RECALLED_WHY = `Taking a stack is most of what capturing costs, and a route's calls come from the same lines request after request: once a call (by its place in the request and its statement or origin) was found at the same line on ${TRUST_AFTER} requests in a row, the next ${RECALLS_BETWEEN_CHECKS} requests show that line without looking, and the one after looks again.`;

function statementSite(statement: StatementEntry): string {
  if (statement.siteLookedUp !== false) return siteSuffix(statement);
  return statement.site === null ? '  (call site not looked up)' : `  ${statement.site} (${NOT_LOOKED_UP})`;
}

function siteSuffix({ site, siteRecalled }: { site: string | null; siteRecalled?: true }): string {
  if (site === null) return '';
  return siteRecalled ? `  ${site} (${RECALLED})` : `  ${site}`;
}
