/**
 * What the overview counts of the requests of one minute: by route, by statement text, by
 * upstream and by exception fingerprint. A minute's counts are plain data, added together
 * across workers, instances and minutes by {@link addMinute}; each kind holds at most a
 * bounded number of keys, the rest counted under {@link OTHER}.
 */
import { addHistogram, countDuration, type LatencyHistogram } from './latency-histogram.js';

/** The key the requests beyond a kind's bound are counted under. */
export const OTHER = '(other)';

/** Keys per kind at most, in one minute and in a window's sum. */
export const KEYS_PER_KIND = 2000;
/** A key's characters at most (a statement's text may run to 10 KiB): what bounds a minute's memory with the count of keys. */
export const KEY_MAX = 500;
/** Routes remembered per statement. */
const ROUTES_PER_STATEMENT = 8;

interface RouteCounts {
  requests: number;
  clientErrors: number;
  serverErrors: number;
  latency: LatencyHistogram;
  /** The slowest request that left a report, to open. */
  slowest: { ms: number; token: string } | null;
}

interface StatementCounts {
  count: number;
  totalMs: number;
  latency: LatencyHistogram;
  /** The routes that ran it, a few. */
  routes: string[];
  /** The most runs of it in one request (an N+1 shows as a large one), and a report of such a request. */
  worstRepeat: number;
  worstRepeatToken: string | null;
}

interface UpstreamCounts {
  calls: number;
  errors: number;
  latency: LatencyHistogram;
}

export interface ExceptionCounts {
  className: string;
  place: string;
  message: string;
  count: number;
  first: number;
  last: number;
  newestToken: string | null;
}

export interface MinuteCounts {
  routes: Record<string, RouteCounts>;
  statements: Record<string, StatementCounts>;
  upstreams: Record<string, UpstreamCounts>;
  exceptions: Record<string, ExceptionCounts>;
}

/** One request, as the overview counts it. */
export interface OverviewSample {
  time: number;
  method: string;
  /** The route's pattern; null when no route matched. */
  route: string | null;
  status: number;
  durationMs: number;
  /** The token of the report kept of it, if one was. */
  token: string | null;
  statements: ReadonlyArray<{ system: string; text: string; durationMs: number }>;
  calls: ReadonlyArray<{ method: string; host: string; durationMs: number | null; failed: boolean }>;
  exception: { fingerprint: string; className: string; place: string; message: string } | null;
}

export function emptyMinute(): MinuteCounts {
  // Keys come from requests (a statement's text): no key may reach a prototype.
  return { routes: table(), statements: table(), upstreams: table(), exceptions: table() };
}

function table<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** How many keys each table holds, so that a new key is not a count of them all. */
const sizes = new WeakMap<object, number>();

/** `key`, or {@link OTHER} once `table` holds its bound of keys. */
function slot<T>(table: Record<string, T>, given: string, make: () => T): T {
  const key = given.length > KEY_MAX ? `${given.slice(0, KEY_MAX)}…` : given;
  const held = table[key];
  if (held !== undefined) return held;
  const size = sizes.get(table) ?? Object.keys(table).length;
  const at = size < KEYS_PER_KIND || key === OTHER ? key : OTHER;
  if (table[at] === undefined) {
    table[at] = make();
    sizes.set(table, size + 1);
  }
  return table[at]!;
}

const newRoute = (): RouteCounts => ({ requests: 0, clientErrors: 0, serverErrors: 0, latency: {}, slowest: null });
const newStatement = (): StatementCounts => ({
  count: 0,
  totalMs: 0,
  latency: {},
  routes: [],
  worstRepeat: 0,
  worstRepeatToken: null,
});
const newUpstream = (): UpstreamCounts => ({ calls: 0, errors: 0, latency: {} });

/** Route keys by pattern and method, made once: a new string at each request would be hashed at each. */
const routeKeys = new Map<string | null, Map<string, string>>();
/** Patterns are the application's routes, methods those they answer: a bound against the unexpected. */
const ROUTE_KEYS_MAX = 10_000;
let routeKeysHeld = 0;

function routeKey(method: string, route: string | null): string {
  const held = routeKeys.get(route)?.get(method);
  if (held !== undefined) return held;
  const key = `${method} ${route ?? '(no route)'}`;
  if (routeKeysHeld < ROUTE_KEYS_MAX) {
    let byMethod = routeKeys.get(route);
    if (byMethod === undefined) routeKeys.set(route, (byMethod = new Map()));
    byMethod.set(method, key);
    routeKeysHeld++;
  }
  return key;
}

/** Counts one request into `minute`. */
export function countSample(minute: MinuteCounts, sample: OverviewSample): void {
  const route = routeKey(sample.method, sample.route);
  const counts = slot(minute.routes, route, newRoute);
  counts.requests++;
  if (sample.status >= 500) counts.serverErrors++;
  else if (sample.status >= 400) counts.clientErrors++;
  countDuration(counts.latency, sample.durationMs);
  if (sample.token !== null && (counts.slowest === null || sample.durationMs > counts.slowest.ms))
    counts.slowest = { ms: sample.durationMs, token: sample.token };

  if (sample.statements.length > 0) countStatements(minute, sample, route);

  for (const call of sample.calls) {
    const held = slot(minute.upstreams, `${call.method} ${call.host}`, newUpstream);
    held.calls++;
    if (call.failed) held.errors++;
    if (call.durationMs !== null) countDuration(held.latency, call.durationMs);
  }

  const { exception } = sample;
  if (exception !== null) {
    const held = slot(minute.exceptions, exception.fingerprint, () => ({
      className: exception.className,
      place: exception.place,
      message: exception.message,
      count: 0,
      first: sample.time,
      last: sample.time,
      newestToken: null,
    }));
    held.count++;
    held.first = Math.min(held.first, sample.time);
    held.last = Math.max(held.last, sample.time);
    if (sample.token !== null) held.newestToken = sample.token;
  }
}

/** Counts a request's statements: runs by the counts they go to, so that a key cut to its bound, or `(other)`, is one statement here too. */
function countStatements(minute: MinuteCounts, sample: OverviewSample, route: string): void {
  const runs = new Map<StatementCounts, number>();
  for (const statement of sample.statements) {
    const held = slot(minute.statements, `${statement.system} ${statement.text}`, newStatement);
    held.count++;
    held.totalMs += statement.durationMs;
    countDuration(held.latency, statement.durationMs);
    if (held.routes.length < ROUTES_PER_STATEMENT && !held.routes.includes(route)) held.routes.push(route);
    runs.set(held, (runs.get(held) ?? 0) + 1);
  }
  for (const [held, repeat] of runs) {
    if (repeat > held.worstRepeat) {
      held.worstRepeat = repeat;
      held.worstRepeatToken = sample.token;
    }
  }
}

/** Adds the counts of `from` into `into` (another worker's, another minute's). */
export function addMinute(into: MinuteCounts, from: MinuteCounts): void {
  for (const [key, counts] of Object.entries(from.routes ?? {})) {
    const held = slot(into.routes, key, newRoute);
    held.requests += counts.requests;
    held.clientErrors += counts.clientErrors;
    held.serverErrors += counts.serverErrors;
    addHistogram(held.latency, counts.latency);
    if (counts.slowest !== null && (held.slowest === null || counts.slowest.ms > held.slowest.ms))
      held.slowest = counts.slowest;
  }
  for (const [key, counts] of Object.entries(from.statements ?? {})) {
    const held = slot(into.statements, key, newStatement);
    held.count += counts.count;
    held.totalMs += counts.totalMs;
    addHistogram(held.latency, counts.latency);
    for (const route of counts.routes)
      if (held.routes.length < ROUTES_PER_STATEMENT && !held.routes.includes(route)) held.routes.push(route);
    if (counts.worstRepeat > held.worstRepeat) {
      held.worstRepeat = counts.worstRepeat;
      held.worstRepeatToken = counts.worstRepeatToken;
    }
  }
  for (const [key, counts] of Object.entries(from.upstreams ?? {})) {
    const held = slot(into.upstreams, key, newUpstream);
    held.calls += counts.calls;
    held.errors += counts.errors;
    addHistogram(held.latency, counts.latency);
  }
  for (const [key, counts] of Object.entries(from.exceptions ?? {})) {
    const held = slot(into.exceptions, key, () => ({ ...counts, count: 0, newestToken: null }));
    held.count += counts.count;
    held.first = Math.min(held.first, counts.first);
    if (counts.last >= held.last) {
      held.last = counts.last;
      held.newestToken = counts.newestToken ?? held.newestToken;
    }
  }
}
