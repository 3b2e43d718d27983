/**
 * Reads the profiler's search filters (Symfony's field names: `ip`, `method`,
 * `status_code`, `url`, `token`, `start`, `end`, `limit`, and `before` to go on where a
 * budgeted search stopped; then vigil's `exception`, `fingerprint`, `route`, `min_duration`
 * and `assets`) from a query string or the command line, and rejects what cannot be a
 * filter with a 400 that says why.
 */
import { BadRequestHttpError } from '../../errors/http-errors.js';
import type { ReportSearch } from '../model/report.js';

const SEARCH_FIELDS = [
  ...['ip', 'method', 'status_code', 'url', 'token', 'start', 'end', 'limit', 'before'],
  ...['exception', 'fingerprint', 'route', 'min_duration', 'assets'],
] as const;
type SearchField = (typeof SEARCH_FIELDS)[number];
export type SearchInput = Partial<Record<string, string | string[] | undefined>>;

const DEFAULT_LIMIT = 100;

/** The search for "latest" (the page `/_profiler/latest`, the command line): the newest report, a browser's own requests left out. */
export const LATEST_SEARCH: ReportSearch = { limit: 1, hideAssets: true };
const MAX_LIMIT = 1000;
const CODE = 'VIGIL_ERR_PROFILER_SEARCH';

/** How messages name a filter: `Search filter "status_code"` on the web, `--status-code` on the command line. */
type FilterNaming = (field: SearchField) => string;
const queryNaming: FilterNaming = (field) => `Search filter "${field}"`;

/**
 * The filters in `input`; empty fields are no filter.
 * @throws {BadRequestHttpError} naming the filter and what it must be.
 */
export function parseSearchFilters(input: SearchInput, nameOf: FilterNaming = queryNaming): ReportSearch {
  const invalid = (field: SearchField, value: string, expected: string) =>
    new BadRequestHttpError(`${nameOf(field)} must be ${expected}; got "${value}".`, CODE);
  const values: Partial<Record<SearchField, string>> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (!(SEARCH_FIELDS as readonly string[]).includes(name)) {
      throw new BadRequestHttpError(
        `Unknown search filter "${name}"; the filters are ${SEARCH_FIELDS.join(', ')}.`,
        CODE,
      );
    }
    if (Array.isArray(value)) throw new BadRequestHttpError(`Search filter "${name}" is given more than once.`, CODE);
    if (value.trim() !== '') values[name as SearchField] = value.trim();
  }
  const { ip, method, status_code: status, url, token, start, end, limit, before } = values;
  const facts = parseFacts(values, method, invalid);
  if (ip !== undefined && !/^[0-9a-f:.]{1,45}$/i.test(ip)) throw invalid('ip', ip, 'an IP address or part of one');
  if (method !== undefined && !/^[a-z]{1,20}$/i.test(method))
    throw invalid('method', method, 'an HTTP method such as GET');
  if (status !== undefined && !(/^\d{3}$/.test(status) && Number(status) >= 100 && Number(status) <= 599)) {
    throw invalid('status_code', status, 'a status code from 100 to 599');
  }
  if (url !== undefined && url.length > 2048) throw invalid('url', `${url.slice(0, 40)}...`, 'at most 2048 characters');
  if (token !== undefined && !/^[0-9a-f]{1,6}$/i.test(token))
    throw invalid('token', token, '1 to 6 hexadecimal characters');
  if (limit !== undefined && !(/^\d{1,4}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT)) {
    throw invalid('limit', limit, `a whole number from 1 to ${MAX_LIMIT}`);
  }
  if (before !== undefined && !(/^\d{1,15}$/.test(before) && Number(before) >= 1)) {
    throw invalid('before', before, 'a position a search page gave (a whole number from 1)');
  }
  const timeOf = (field: 'start' | 'end', value: string) => {
    const time = parseTime(value, field === 'end');
    if (time === undefined)
      throw invalid(field, value, 'epoch milliseconds or an ISO 8601 date such as 2026-01-02 or 2026-01-02T10:30');
    return time;
  };
  const from = start === undefined ? undefined : timeOf('start', start);
  const to = end === undefined ? undefined : timeOf('end', end);
  if (from !== undefined && to !== undefined && from > to) {
    throw new BadRequestHttpError(`${nameOf('start')} (${start}) is after ${nameOf('end')} (${end}).`, CODE);
  }
  return {
    ip: ip?.toLowerCase(),
    method: (facts.method ?? method)?.toUpperCase(),
    statusCode: status === undefined ? undefined : Number(status),
    url,
    token: token?.toLowerCase(),
    start: from,
    end: to,
    limit: limit === undefined ? DEFAULT_LIMIT : Number(limit),
    before: before === undefined ? undefined : Number(before),
    exception: facts.exception,
    fingerprint: facts.fingerprint,
    route: facts.route,
    minDuration: facts.minDuration,
    hideAssets: facts.hideAssets,
  };
}

type Invalid = (field: SearchField, value: string, expected: string) => BadRequestHttpError;

/** A route as `/api/products/{id}`, or with its method first (`GET /api/products/{id}`). */
const ROUTE = /^(?:([a-z]{1,20})\s+)?(\/\S{0,2047})$/i;

/** vigil's own filters: on the facts kept beside the summary, and the browser's own requests (hidden unless `assets=show`). */
function parseFacts(values: Partial<Record<SearchField, string>>, method: string | undefined, invalid: Invalid) {
  const { exception, fingerprint, route, min_duration: minDuration, assets } = values;
  if (exception !== undefined && !/^[\p{L}\p{N}_$.]{1,200}$/u.test(exception))
    throw invalid('exception', exception, 'the class of an exception, such as TypeError');
  if (fingerprint !== undefined && !/^[\w-]{16}$/.test(fingerprint))
    throw invalid('fingerprint', fingerprint, 'the fingerprint of an exceptions group (16 characters)');
  const routed = route === undefined ? undefined : ROUTE.exec(route);
  if (route !== undefined && !routed) throw invalid('route', route, 'a route pattern such as GET /api/products/{id}');
  const routeMethod = routed?.[1]?.toUpperCase();
  if (routeMethod !== undefined && method !== undefined && routeMethod !== method.toUpperCase())
    throw invalid('route', route!, `a route of the method searched (${method.toUpperCase()})`);
  if (minDuration !== undefined && !/^\d{1,9}(?:\.\d{1,3})?$/.test(minDuration))
    throw invalid('min_duration', minDuration, 'a number of milliseconds such as 250');
  if (assets !== undefined && assets !== 'show' && assets !== 'hide')
    throw invalid('assets', assets, '"show" or "hide"');
  return {
    exception,
    fingerprint,
    route: routed?.[2],
    method: routeMethod,
    minDuration: minDuration === undefined ? undefined : Number(minDuration),
    hideAssets: assets !== 'show',
  };
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|[+-]\d{2}:\d{2})?$/i;

/**
 * Epoch milliseconds of an epoch-milliseconds number or an ISO 8601 date or date-time; undefined when it is neither.
 * Dates are `2026-01-02` or `2026-01-02T10:30`, with seconds and a zone optional; without a zone they are UTC, as
 * the pages show them. With `endOfDay`, a bare date (the `end` filter) means the end of that day.
 */
export function parseTime(value: string, endOfDay: boolean): number | undefined {
  if (/^\d{1,15}$/.test(value)) return Number(value);
  const match = ISO_TIME.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = match;
  const parts = [
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h ?? 0),
    Number(mi ?? 0),
    Number(s ?? 0),
    Number((frac ?? '0').padEnd(3, '0')),
  ] as const;
  const utc = new Date(Date.UTC(...parts));
  // Date.UTC rolls 2026-02-30 over into March; a real date comes back unchanged.
  const fields = [
    utc.getUTCFullYear(),
    utc.getUTCMonth(),
    utc.getUTCDate(),
    utc.getUTCHours(),
    utc.getUTCMinutes(),
    utc.getUTCSeconds(),
  ];
  if (fields.some((field, i) => field !== parts[i])) return undefined;
  let time = utc.getTime();
  if (zone && zone.toUpperCase() !== 'Z') {
    const [zh, zm] = zone.slice(1).split(':').map(Number) as [number, number];
    if (zh > 23 || zm > 59) return undefined;
    time -= (zone.startsWith('-') ? -1 : 1) * (zh * 60 + zm) * 60_000;
  }
  return h === undefined && endOfDay ? time + 86_400_000 - 1 : time;
}
