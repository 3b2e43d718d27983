/**
 * The statements of the SQLite store's search, with its semantics: `ip` and `url` match a part, case
 * and `%`, `_`, `\` as they are (`instr`), `method` and the status exactly, `token` a prefix, `start`
 * and `end` inclusive, newest (highest id) first.
 */
import type { ReportSearch } from '../../model/report.js';
import { WINDOW } from '../search-windows.js';

export const SUMMARY_COLUMNS =
  'token, time, method, url, status, ip, duration, route, exception, fingerprint, statements, calls';

/** A lookup's trigrams are expected together in at most this share of the reports (500 of 5 M). */
export const LOOKUP_SHARE = 1e-4;

/** Trigrams of a long part weighed at most, spread over it: a 2048-character part has 683. */
export const MAX_WEIGHED_TRIGRAMS = 32;

/** The share of the reports expected to hold a trigram, from 0 to 1. */
type TrigramShare = (trigram: string) => number;

/**
 * The trigram query for `part`, each trigram quoted; undefined when no trigram answers it. Of the
 * trigrams that cover the part, the rarest by `share` come first, and only as many as the lookup
 * needs (`LOOKUP_SHARE`): a trigram most reports hold makes FTS5 step through its whole list and
 * narrows nothing, while `instr` checks the part itself on every report the lookup gives. So
 * any of them will do, and a long part is weighed by some of them only.
 */
export function trigramQuery(part: string, share: TrigramShare = () => 1): string | undefined {
  const chars = [...part];
  if (chars.length < 3 || part.includes('\u0000')) return undefined;
  const cover = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i += 3) cover.add(chars.slice(i, i + 3).join(''));
  if (chars.length % 3 !== 0) cover.add(chars.slice(-3).join(''));
  const covering = [...cover];
  const step = covering.length / MAX_WEIGHED_TRIGRAMS;
  const weighed =
    step <= 1 ? covering : Array.from({ length: MAX_WEIGHED_TRIGRAMS }, (_, i) => covering[Math.floor(i * step)]!);
  const rarestFirst = weighed.map((trigram) => ({ trigram, share: share(trigram) }));
  rarestFirst.sort((a, b) => a.share - b.share);
  const chosen: string[] = [];
  let expected = 1;
  for (const { trigram, share } of rarestFirst) {
    chosen.push(`"${trigram.replaceAll('"', '""')}"`);
    expected *= share;
    if (expected <= LOOKUP_SHARE) break;
  }
  return chosen.join(' AND ');
}

/** Shares of trigrams among sampled values (the newest reports'); one not sampled counts half a value. */
export class TrigramSample {
  private readonly shares = new Map<string, number>();

  constructor(private readonly values: readonly string[]) {}

  readonly share: TrigramShare = (trigram) => {
    let share = this.shares.get(trigram);
    if (share === undefined) {
      let holding = 0;
      for (const value of this.values) if (value.includes(trigram)) holding++;
      share = (holding + 0.5) / (this.values.length + 1);
      this.shares.set(trigram, share);
    }
    return share;
  };
}

/** Above any character a token holds: the end of a token prefix's range. */
const PAST_PREFIX = '\uffff';

/**
 * How a search is read. Without a URL or IP part, indexes answer it at once: `scan`, with
 * `values` and the limit; or, with a budget, a `walk` of one index ({@link FilterWalk}).
 * With one, the ids of the reports it finds are read newest first,
 * so that a search with a budget can stop between two and say where, then their summaries
 * (`SUMMARIES_OF_IDS`): `window`s of ids (the highest, the id below the lowest, `values`,
 * the limit), first over the tail of reports the trigram tables do not hold yet; then the
 * `lookup` of a part in a trigram table (`values`, `match`, the highest id), which gives
 * every report it reads with whether it meets the filters, so that a filter none meets does
 * not read the whole store in one step. All in one snapshot.
 */
type SearchPlan = { values: Array<string | number>; limit: number } & (
  | { scan: string; window?: undefined; lookup?: undefined; walk?: undefined }
  | { scan?: undefined; window: string; lookup?: { sql: string; match: string }; walk?: undefined }
  | { scan?: undefined; window?: undefined; lookup?: undefined; walk: FilterWalk }
);

/**
 * A search with a budget by exact filters and time, none of which alone answers it: the
 * reports of one index (the status's, else the method's, else the primary key) newest
 * first, from `sql` (`values`, `driving`, the highest id), each with whether it meets every
 * filter. A time range that holds fewer than a window of reports (`narrow.count`, with
 * `narrow.values`) is read at once from the time index instead (`narrow.scan`, `values`,
 * the limit).
 */
interface FilterWalk {
  sql: string;
  driving: Array<string | number>;
  narrow?: { count: string; values: number[]; scan: string };
}

/** The summaries of the reports of a JSON array of ids, newest first. */
export const SUMMARIES_OF_IDS = `SELECT ${SUMMARY_COLUMNS} FROM reports WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id DESC`;

/**
 * The statements and their values. `indexed`: the trigram tables hold every report below
 * the tail. The part looked up in a trigram table drives the lookup (URL before IP); every
 * other filter is checked on the reports it gives; `instr` keeps those that hold the part itself. The
 * tail, not indexed yet, is read in windows first, as it is the newest. A part under three characters,
 * or any part while an older file's tables are being filled, reads the reports in windows.
 * `shares`: how common each trigram of a field is, to look up the rarest.
 */
export function searchStatement(
  filters: ReportSearch,
  indexed: boolean,
  shares?: (field: 'url' | 'ip') => TrigramShare,
): SearchPlan {
  const where: string[] = [];
  const values: Array<string | number> = [];
  let driver: { table: string; query: string } | undefined;
  for (const field of ['url', 'ip'] as const) {
    const part = filters[field];
    if (!part) continue;
    const query = indexed && !driver ? trigramQuery(part, shares?.(field)) : undefined;
    if (query !== undefined) driver = { table: `reports_${field}_search`, query };
    where.push(`instr(r.${field}, ?) > 0`);
    values.push(part);
  }
  if (filters.method) where.push('r.method = ?'), values.push(filters.method.toUpperCase());
  if (filters.statusCode !== undefined) where.push('r.status = ?'), values.push(filters.statusCode);
  for (const [column, value] of exactFacts(filters)) where.push(`r.${column} = ?`), values.push(value);
  if (filters.minDuration !== undefined) where.push('r.duration >= ?'), values.push(filters.minDuration);
  if (filters.hideAssets) where.push('r.asset = 0');
  if (filters.token) {
    const prefix = filters.token.toLowerCase();
    // A range on the token index, and the prefix itself.
    where.push('r.token >= ? AND r.token < ? AND substr(r.token, 1, ?) = ?');
    values.push(prefix, prefix + PAST_PREFIX, prefix.length, prefix);
  }
  if (filters.start !== undefined) where.push('r.time >= ?'), values.push(filters.start);
  if (filters.end !== undefined) where.push('r.time <= ?'), values.push(filters.end);
  if (filters.before !== undefined) where.push('r.id < ?'), values.push(filters.before);
  const columns = SUMMARY_COLUMNS.split(', ')
    .map((column) => `r.${column}`)
    .join(', ');
  const limit = filters.limit ?? 100;
  // Newest in arrival order: the report written last comes first, even after the clock was stepped back.
  const newestFirst = (conditions: string[]) =>
    `SELECT ${columns} FROM reports r ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY r.id DESC LIMIT ?`;
  if (filters.token && !filters.url && !filters.ip) {
    // The ids first, from the token index alone (it holds them): a short prefix holds thousands.
    const ids = `SELECT r.id FROM reports r WHERE ${where.join(' AND ')} ORDER BY r.id DESC LIMIT ?`;
    return { scan: `SELECT ${columns} FROM reports r WHERE r.id IN (${ids}) ORDER BY r.id DESC`, values, limit };
  }
  if (!filters.url && !filters.ip) {
    const walk = filters.budgetMs !== undefined && indexed ? filterWalk(filters, columns, where) : undefined;
    return walk ? { walk, values, limit } : { scan: newestFirst(where), values, limit };
  }
  const window = `SELECT r.id FROM reports r WHERE r.id <= ? AND r.id > ? AND ${where.join(' AND ')} ORDER BY r.id DESC LIMIT ?`;
  if (!driver) return { window, values, limit };
  // CROSS JOIN keeps the trigram table first: it gives its reports newest first, and the reading stops it.
  const sql = `SELECT s.rowid AS id, (${where.join(' AND ')}) AS hit FROM ${driver.table} s CROSS JOIN reports r ON r.id = s.rowid WHERE s.${driver.table} MATCH ? AND s.rowid <= ? ORDER BY s.rowid DESC`;
  return { window, lookup: { sql, match: driver.query }, values, limit };
}

/** The filters on a fact with a B-tree of its own, the most selective first: column and value. */
function exactFacts(filters: ReportSearch): Array<[column: string, value: string]> {
  const facts: Array<[string, string | undefined]> = [
    ['fingerprint', filters.fingerprint],
    ['exception', filters.exception],
    ['route', filters.route],
  ];
  return facts.filter((fact): fact is [string, string] => fact[1] !== undefined && fact[1] !== '');
}

/**
 * The walk of a search by exact filters, time, duration and browser assets (no part, no
 * token); undefined when one index answers it, every report it gives meeting the filters
 * (a fact, a status, a method, or none).
 */
function filterWalk(filters: ReportSearch, columns: string, where: string[]): FilterWalk | undefined {
  const timed = filters.start !== undefined || filters.end !== undefined;
  const unindexed = filters.minDuration !== undefined || Boolean(filters.hideAssets);
  const facts = exactFacts(filters);
  const exact = facts.length + Number(filters.statusCode !== undefined) + Number(Boolean(filters.method));
  if (!timed && !unindexed && exact <= 1) return undefined;
  // Only the driving index's condition is a condition of the statement: the others, in `hit`, leave the planner no other choice.
  const driver = facts[0]
    ? { condition: `r.${facts[0][0]} = ? AND `, values: [facts[0][1]] }
    : filters.statusCode !== undefined
      ? { condition: 'r.status = ? AND ', values: [filters.statusCode] }
      : filters.method
        ? { condition: 'r.method = ? AND ', values: [filters.method.toUpperCase()] }
        : { condition: '', values: [] };
  const sql = `SELECT r.id, (${where.join(' AND ')}) AS hit FROM reports r WHERE ${driver.condition}r.id <= ? ORDER BY r.id DESC`;
  if (!timed) return { sql, driving: driver.values };
  const conditions = where.join(' AND ');
  return {
    sql,
    driving: driver.values,
    narrow: {
      count: `SELECT count(*) FROM (SELECT 1 FROM reports INDEXED BY reports_by_time WHERE time >= ? AND time <= ? LIMIT ${WINDOW})`,
      values: [filters.start ?? Number.MIN_SAFE_INTEGER, filters.end ?? Number.MAX_SAFE_INTEGER],
      scan: `SELECT ${columns} FROM reports r INDEXED BY reports_by_time WHERE ${conditions} ORDER BY r.id DESC LIMIT ?`,
    },
  };
}

/**
 * The exception groups among the newest reports with one (`reports_by_id_with_exception`): the
 * window's size, then the number of groups. Statuses and routes come as JSON arrays.
 */
export const EXCEPTION_GROUPS = `SELECT g.fingerprint, g.exception, g.count, g.firstSeen, g.lastSeen, g.statuses, g.routes, r.token AS newest
FROM (
  SELECT fingerprint, min(exception) AS exception, count(*) AS count, min(time) AS firstSeen, max(time) AS lastSeen,
    json_group_array(DISTINCT status) AS statuses,
    json_group_array(DISTINCT method || coalesce(' ' || route, '')) AS routes, max(id) AS newestId
  FROM (SELECT id, fingerprint, exception, time, status, method, route FROM reports WHERE fingerprint IS NOT NULL AND asset = 0 ORDER BY id DESC LIMIT ?)
  GROUP BY fingerprint
) g JOIN reports r ON r.id = g.newestId
ORDER BY g.newestId DESC LIMIT ?`;
