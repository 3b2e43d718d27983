/**
 * `npm run bench`: the kernel's hot path (a debug 404 with its stored report) against
 * Node's and Fastify's floors, on loopback, in alternating rounds, medians reported;
 * then the same 404 served by two processes (WORKERS=2), with the CPU of every process,
 * and (h), a floor: the least a stored debug 404 needs (bench/floor-404.ts).
 * vigil is compiled first (`npm run build`) and measured as it is deployed.
 *
 *   npm run bench                 ~4 minutes: 5 rounds of 5 s per target
 *   npm run bench -- --quick      under three minutes: 2 rounds of 4 s
 *   npm run bench -- --soak       also 1 million requests at (d), then its RSS
 *   npm run bench -- --readme     also writes the table into bench/README.md, between its markers
 *   npm run bench -- --only j,k   only those targets (a letter takes its bare and debug twins)
 *   npm run bench -- --only i     (i) alone: the cost of capturing the application's activity
 *
 * Then (g): /hello alone and beside hostile JSON bodies (bench/body-stall.ts).
 * (j) and (k): application routes in production, standalone and as a plugin in
 * `examples/fastify-app`, each against the same routes in bare Fastify, and (j) in debug;
 * (kr) the example keeping errors and slow requests, and (ks) the same after a statement at boot.
 */
import { request } from 'node:https';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/index.js';
import { createReportStore } from '../src/profiler/storage/store-factory.js';
import { runBodyStall, type BodyStallResult } from './body-stall.js';
import { load, loader, median, SEED_HEADERS, type LoadResult } from './load.js';
import { buildVigil, loadGeneratorCpuMs, ROOT, settle, startTarget, type RunningTarget } from './targets.js';

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    soak: { type: 'boolean', default: false },
    readme: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    pairs: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '32' },
    only: { type: 'string' },
    requests: { type: 'string' },
  },
});

// (i) alone: the cost of capturing the application's calls and statements (bench/app-activity.ts).
if (flags.only === 'i') {
  const { runAppActivity } = await import('./app-activity.js');
  const result = await runAppActivity({
    rounds: Number(flags.rounds ?? 5),
    requests: Number(flags.requests ?? 1000),
    pairs: Number(flags.pairs ?? 3),
  });
  console.log(
    `(i) 5 PostgreSQL queries + 1 fetch, debug mode: main-thread CPU per request ${result.onMsPerRequest.toFixed(3)} ms with capture, ` +
      `${result.offMsPerRequest.toFixed(3)} ms without (PROFILER_CAPTURE_APP=0): +${result.addedPercent.toFixed(1)} % (the median round); ` +
      `rounds ${result.roundPercents.map((percent) => `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}`).join(', ')} %. ` +
      `Without capture, every thread of the process: ${result.offAllThreadsMsPerRequest.toFixed(3)} ms per request; ` +
      `the main thread's added CPU is ${result.addedOfAllThreadsPercent.toFixed(1)} % of it (the median round). ` +
      `Every thread's added CPU, over every thread's without capture: +${result.allThreadsAddedPercent.toFixed(1)} % (the median round; ` +
      `rounds ${result.allThreadsRoundPercents.map((percent) => `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}`).join(', ')} %).`,
  );
  process.exit(0);
}
// Five short rounds rather than three long ones: on a shared machine one disturbed round
// cannot move a median of five.
const rounds = Number(flags.rounds ?? (flags.quick ? 2 : 5));
const seconds = Number(flags.seconds ?? (flags.quick ? 4 : 5));
const connections = Number(flags.connections);
const SOAK_REQUESTS = 1_000_000;

interface TargetSpec {
  id: string;
  label: string;
  script: string;
  env?: Record<string, string>;
  /** Processes serving (WORKERS): the main threads' busy share is per process. */
  workers?: number;
  /** The paths each connection asks in turn (default: /robots.txt, the seed's 404). */
  paths?: readonly string[];
  /** The environment known only once the targets before it started (their certificate). */
  lateEnv?: () => Record<string, string>;
  /**
   * A new process for each round, warmed up before it: a ratio to a twin is not then one
   * pair of processes' (their compiled code and heap set the CPU of all their rounds).
   */
  freshEachRound?: boolean;
}

const work = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
const vigilEnv = (appEnv: 'dev' | 'prod', dir: string = appEnv) => ({
  APP_ENV: appEnv,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'info',
  VAR_DIR: join(work, dir),
});

/** `examples/fastify-app` in production, as its server starts it, with a VAR_DIR of its own. */
const exampleEnv = (dir: string, settings: Record<string, string> = {}) => ({
  APP_ENV: 'prod',
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'warn',
  VAR_DIR: join(work, dir),
  ...settings,
});

/** vigil as deployed: compiled by `npm run build` (tsx's loader thread would add its own heap). */
const VIGIL = 'dist/src/main.js';
/** (j)'s routes, as ROUTES for vigil standalone. */
const APP_ROUTES = join(ROOT, 'dist/bench/targets/app-routes.js');
const J_PATHS = ['/hello', '/status'];
const K_PATHS = ['/hello', '/users/1'];
const prodTls = () => ({
  TLS_KEY: join(work, 'prod-j', 'tls', 'localhost.key'),
  TLS_CERT: join(work, 'prod-j', 'tls', 'localhost.crt'),
});

const specs: TargetSpec[] = [
  { id: 'a', label: 'node:http 404 (HTTP)', script: 'bench/targets/node-http.ts' },
  { id: 'b', label: 'Fastify default 404 (HTTP)', script: 'bench/targets/fastify-bare.ts' },
  {
    id: 'c',
    label: "Fastify replaying vigil's 404 (HTTPS)",
    script: 'bench/targets/fastify-replay.ts',
    env: { REPLAY: join(work, 'replay.json') },
  },
  // Retention at its largest for the run, so stored reports can be counted against requests sent.
  {
    id: 'd',
    label: 'vigil debug 404, report stored (HTTPS)',
    script: VIGIL,
    env: { ...vigilEnv('dev'), PROFILER_MAX_REPORTS: '5000000', PROFILER_MAX_AGE: '30d' },
  },
  { id: 'e', label: 'vigil production 404 (HTTPS)', script: VIGIL, env: vigilEnv('prod') },
  // (d) served by a primary and two workers writing one store.
  {
    id: 'f',
    label: 'vigil debug 404, WORKERS=2, report stored (HTTPS)',
    script: VIGIL,
    env: { ...vigilEnv('dev', 'workers'), WORKERS: '2', PROFILER_MAX_REPORTS: '5000000', PROFILER_MAX_AGE: '30d' },
    workers: 2,
  },
  // The least a stored debug 404 needs, in Fastify as vigil configures it, with none of the kernel's rules.
  {
    id: 'h',
    label: "floor: a stored debug 404 in vigil's Fastify, none of its rules (HTTPS)",
    script: 'bench/floor-404.ts',
    env: { REPLAY: join(work, 'replay.json'), BATCH: '1', FASTIFY: 'vigil', VAR_DIR: join(work, 'floor') },
  },
  // Application routes: vigil standalone in production (ROUTES, as `npm start`) against bare Fastify with its certificate.
  {
    id: 'j',
    freshEachRound: true,
    label: 'vigil production, /hello and /status, standalone (HTTPS)',
    script: VIGIL,
    env: { ...vigilEnv('prod', 'prod-j'), ROUTES: APP_ROUTES },
    paths: J_PATHS,
  },
  {
    id: 'jb',
    freshEachRound: true,
    label: 'bare Fastify, the same routes, same certificate (HTTPS)',
    script: 'bench/targets/fastify-routes.ts',
    env: { ROUTES_OF: 'j' },
    lateEnv: prodTls,
    paths: J_PATHS,
  },
  {
    id: 'jd',
    label: 'vigil debug, the same routes, reports stored (HTTPS)',
    script: VIGIL,
    env: { ...vigilEnv('dev', 'dev-j'), ROUTES: APP_ROUTES, PROFILER_MAX_REPORTS: '5000000', PROFILER_MAX_AGE: '30d' },
    paths: J_PATHS,
  },
  // vigil as a plugin in an application: examples/fastify-app (plain HTTP, as it serves), against its routes in bare Fastify.
  {
    id: 'k',
    freshEachRound: true,
    label: 'examples/fastify-app with vigil, production, /hello and /users/1 (HTTP)',
    script: 'bench/targets/fastify-app.ts',
    env: exampleEnv('app-k'),
    paths: K_PATHS,
  },
  // The same example keeping errors and slow requests (PROFILER_KEEP), with the overview counting every request.
  {
    id: 'kr',
    freshEachRound: true,
    label: 'examples/fastify-app with vigil, production, PROFILER_KEEP=errors,slow (HTTP)',
    script: 'bench/targets/fastify-app.ts',
    env: exampleEnv('app-kr', { PROFILER_KEEP: 'errors,slow' }),
    paths: K_PATHS,
  },
  // The same, in a process whose code has made a statement (at boot): requests enter their async context.
  {
    id: 'ks',
    freshEachRound: true,
    label: 'examples/fastify-app with vigil, production, PROFILER_KEEP=errors,slow, a statement at boot (HTTP)',
    script: 'bench/targets/fastify-app.ts',
    env: exampleEnv('app-ks', { PROFILER_KEEP: 'errors,slow', STATEMENT_AT_BOOT: '1' }),
    paths: K_PATHS,
  },
  {
    id: 'kb',
    freshEachRound: true,
    label: 'bare Fastify, the same routes (HTTP)',
    script: 'bench/targets/fastify-routes.ts',
    env: { ROUTES_OF: 'k' },
    paths: K_PATHS,
  },
  // The example without vigil, as it would log: Fastify's own pino logger at the same level.
  {
    id: 'kl',
    freshEachRound: true,
    label: "bare Fastify, the same routes, Fastify's pino logger at warn (HTTP)",
    script: 'bench/targets/fastify-routes.ts',
    env: { ROUTES_OF: 'k', LOGGER_LEVEL: 'warn' },
    paths: K_PATHS,
  },
];

/** `--only j,k`: the targets whose id starts with one of the letters (`j` takes `jb` and `jd`). */
const only = flags.only
  ?.split(',')
  .map((letter) => letter.trim())
  .filter(Boolean);
const selected = only ? specs.filter((spec) => only.includes(spec.id[0]!)) : specs;
const has = (id: string) => selected.some((spec) => spec.id === id);
/** (c) and (h) replay (d)'s answer: (d) is started to capture it even when not measured. */
const needsReplay = has('c') || has('h');

interface TargetResult {
  label: string;
  runs: LoadResult[];
  rps: number;
  p50Ms: number;
  p99Ms: number;
  rssMb: number;
  requests: number;
  /**
   * CPU per request over the timed rounds (µs): the main threads, all threads (of every
   * process the target started, with WORKERS), the first process alone (with WORKERS, the
   * primary), and the load generator.
   */
  cpuUs: { main: number; all: number; root: number; generator: number };
  /** Share of the timed rounds' wall time a serving process's main thread was on a CPU. */
  mainBusy: number;
}

/** vigil's answer to the seed's request, for (c) to replay byte for byte. */
function capture(url: string, ca: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolveCapture, reject) => {
    const req = request(
      `${url}/robots.txt`,
      { headers: SEED_HEADERS, ca, servername: 'localhost', rejectUnauthorized: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            // Node adds these itself; everything else is sent as vigil sent it.
            if (!['date', 'content-length', 'connection', 'keep-alive'].includes(name) && typeof value === 'string')
              headers[name] = value;
          }
          resolveCapture({ status: res.statusCode ?? 0, headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const tool = await loader();
  buildVigil();
  process.stdout.write(
    `vigil bench: ${rounds} rounds x ${seconds} s per target, ${connections} connections, ${tool}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}\n`,
  );
  const running = new Map<string, RunningTarget>();
  try {
    if (needsReplay) {
      const vigilDev = await startTarget(VIGIL, specs[3]!.env);
      running.set('d', vigilDev);
      const tls = {
        key: readFileSync(join(work, 'dev', 'tls', 'localhost.key'), 'utf8'),
        cert: readFileSync(join(work, 'dev', 'tls', 'localhost.crt'), 'utf8'),
      };
      const captured = await capture(vigilDev.url, tls.cert);
      writeFileSync(join(work, 'replay.json'), JSON.stringify({ ...captured, ...tls }));
    }
    const start = async (spec: TargetSpec) =>
      running.set(spec.id, await startTarget(spec.script, { ...spec.env, ...spec.lateEnv?.() }));
    for (const spec of selected) if (!running.has(spec.id)) await start(spec);

    const results = new Map<string, TargetResult>(
      selected.map((spec) => [
        spec.id,
        {
          label: spec.label,
          runs: [],
          rps: 0,
          p50Ms: 0,
          p99Ms: 0,
          rssMb: 0,
          requests: 0,
          cpuUs: { main: 0, all: 0, root: 0, generator: 0 },
          mainBusy: 0,
        },
      ]),
    );
    const cpu = new Map(
      selected.map((spec) => [
        spec.id,
        { main: 0, all: 0, root: 0, generator: 0, requests: 0, ms: 0, mainWhileLoaded: 0 },
      ]),
    );
    const loadOf = (spec: TargetSpec, loadSeconds: number) =>
      spec.paths
        ? load(running.get(spec.id)!.url, {
            seconds: loadSeconds,
            connections,
            headers: SEED_HEADERS,
            paths: spec.paths,
          })
        : load(`${running.get(spec.id)!.url}/robots.txt`, { seconds: loadSeconds, connections, headers: SEED_HEADERS });
    const warmUp = async (spec: TargetSpec) => {
      results.get(spec.id)!.requests += (await loadOf(spec, 1)).requests;
      await settle(running.get(spec.id)!);
    };
    for (const spec of selected) await warmUp(spec);
    for (let round = 1; round <= rounds; round++) {
      for (const spec of round % 2 ? selected : [...selected].reverse()) {
        if (spec.freshEachRound && round > 1) {
          await running.get(spec.id)!.stop();
          // Out of the map while none runs: a failed start leaves nothing to stop twice.
          running.delete(spec.id);
          await start(spec);
          await warmUp(spec);
        }
        const before = running.get(spec.id)!.cpuMs();
        const generatorBefore = loadGeneratorCpuMs();
        const started = performance.now();
        const result = await loadOf(spec, seconds);
        const loadMs = performance.now() - started;
        const loaded = running.get(spec.id)!.cpuMs().main;
        // What the round left running is charged to it, and done before the next target's round.
        const settledMs = await settle(running.get(spec.id)!);
        const used = cpu.get(spec.id)!;
        const after = running.get(spec.id)!.cpuMs();
        used.generator += loadGeneratorCpuMs() - generatorBefore;
        used.main += after.main - before.main;
        used.all += after.all - before.all;
        used.root += after.root - before.root;
        used.ms += loadMs;
        used.mainWhileLoaded += loaded - before.main;
        used.requests += result.requests;
        const target = results.get(spec.id)!;
        target.runs.push(result);
        target.requests += result.requests;
        process.stdout.write(
          `  round ${round} ${spec.id}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms${result.errors ? `, ${result.errors} errors` : ''}${settledMs > 500 ? `, quiet ${(settledMs / 1000).toFixed(1)} s after` : ''}\n`,
        );
      }
    }
    for (const [id, target] of results) {
      target.rps = median(target.runs.map((r) => r.rps));
      target.p50Ms = median(target.runs.map((r) => r.p50Ms));
      target.p99Ms = median(target.runs.map((r) => r.p99Ms));
      target.rssMb = running.get(id)!.rssMb();
      const used = cpu.get(id)!;
      const perRequest = (ms: number) => (ms * 1000) / used.requests;
      target.cpuUs = {
        main: perRequest(used.main),
        all: perRequest(used.all),
        root: perRequest(used.root),
        generator: perRequest(used.generator),
      };
      target.mainBusy = used.mainWhileLoaded / used.ms / (specs.find((spec) => spec.id === id)!.workers ?? 1);
    }

    // Every request (d) and (f) answered must have its report: stop each (it flushes) and count.
    const reports = {
      d: has('d')
        ? await storedReports(specs.find((spec) => spec.id === 'd')!, running.get('d')!, results.get('d')!.requests + 1)
        : undefined,
      f: has('f')
        ? await storedReports(specs.find((spec) => spec.id === 'f')!, running.get('f')!, results.get('f')!.requests)
        : undefined,
    };

    const stall = !only || only.includes('g') ? await measureBodyStall() : undefined;
    const soak = flags.soak ? await runSoak() : undefined;
    report(results, reports, stall, soak, tool);
  } finally {
    await Promise.all([...running.values()].map((target) => target.stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Stops a vigil target (its workers write their queues) and counts the reports in its store,
 * found from its settings as the service found it, and those its workers said they dropped.
 */
async function storedReports(spec: TargetSpec, target: RunningTarget, answered: number): Promise<Reports> {
  await target.stop();
  const store = createReportStore(loadConfig(spec.env, ROOT).profilerStore);
  await store.open();
  const stored = await store.count();
  await store.close();
  const lines = [...target.output().matchAll(/Debug reports: \d+ written, (\d+) dropped/g)];
  // Each process logs its line as it stops: one missing is a process that did not stop cleanly.
  const dropped = lines.length === (spec.workers ?? 1) ? lines.reduce((sum, line) => sum + Number(line[1]), 0) : NaN;
  return { answered, stored, dropped };
}

/** (g): /hello on vigil in production with the demo routes, alone and beside hostile JSON bodies. */
async function measureBodyStall(): Promise<BodyStallResult> {
  const target = await startTarget(VIGIL, {
    ...vigilEnv('prod', 'stall'),
    ROUTES: join(ROOT, 'dist/examples/demo-routes.js'),
  });
  try {
    const result = await runBodyStall(target, { seconds: seconds * 2, connections });
    const line = (name: string, r: LoadResult) =>
      `  (g) /hello ${name}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99Ms.toFixed(2)} ms, max ${r.maxMs.toFixed(0)} ms\n`;
    process.stdout.write(line('alone', result.alone) + line('beside hostile JSON bodies', result.withBodies));
    return result;
  } finally {
    await target.stop();
  }
}

/** One million requests at (d) with its default retention, then its resident memory. */
async function runSoak(): Promise<{ requests: number; rssMb: number; seconds: number }> {
  const target = await startTarget(VIGIL, vigilEnv('dev', 'soak'));
  const started = Date.now();
  let requests = 0;
  try {
    while (requests < SOAK_REQUESTS && Date.now() - started < 15 * 60_000) {
      requests += (await load(`${target.url}/robots.txt`, { seconds: 20, connections, headers: SEED_HEADERS }))
        .requests;
      process.stdout.write(`  soak: ${requests} requests, RSS ${target.rssMb().toFixed(0)} MB\n`);
    }
    return { requests, rssMb: target.rssMb(), seconds: (Date.now() - started) / 1000 };
  } finally {
    await target.stop();
  }
}

interface Reports {
  answered: number;
  stored: number;
  dropped: number;
}

function report(
  results: Map<string, TargetResult>,
  reports: { d: Reports | undefined; f: Reports | undefined },
  stall: BodyStallResult | undefined,
  soak: { requests: number; rssMb: number } | undefined,
  tool: string,
): void {
  const r = (id: string) => results.get(id)!;
  // A ratio of two targets, when both ran.
  const ratio = (x: string, y: string, of: (t: TargetResult) => number = (t) => t.rps) =>
    results.has(x) && results.has(y) ? of(r(x)) / of(r(y)) : undefined;
  // Of two targets measured one right after the other in every round: the median of the
  // rounds' own ratios, which a machine slower in one round than in the next moves less.
  const paired = (x: string, y: string) =>
    results.has(x) && results.has(y)
      ? median(r(x).runs.map((run, round) => run.rps / r(y).runs[round]!.rps))
      : undefined;
  const ratios: Record<string, number | undefined> = {
    'd/c': ratio('d', 'c'),
    'e/c': ratio('e', 'c'),
    'e/b': ratio('e', 'b'),
    'p99 d/c': ratio('d', 'c', (t) => t.p99Ms),
    'f/d': ratio('f', 'd'),
    'h/c': ratio('h', 'c'),
    'j/bare': paired('j', 'jb'),
    'k/bare': paired('k', 'kb'),
    'kr/bare': paired('kr', 'kb'),
    'ks/bare': paired('ks', 'kb'),
    'j/bare, of the medians': ratio('j', 'jb'),
    'k/bare, of the medians': ratio('k', 'kb'),
    'k/kl': paired('k', 'kl'),
    // What a logger alone costs bare Fastify (kl has Fastify's own), and keeping reports over (k) and over (kl).
    'kl/bare': paired('kl', 'kb'),
    'kr/k': paired('kr', 'k'),
    'kr/kl': paired('kr', 'kl'),
    'jd/bare': ratio('jd', 'jb'),
    'jd/h': ratio('jd', 'h'),
    'CPU j/bare': ratio('j', 'jb', (t) => t.cpuUs.main),
    'CPU k/bare': ratio('k', 'kb', (t) => t.cpuUs.main),
    'CPU kr/bare': ratio('kr', 'kb', (t) => t.cpuUs.main),
    'CPU ks/bare': ratio('ks', 'kb', (t) => t.cpuUs.main),
    'CPU k/kl': ratio('k', 'kl', (t) => t.cpuUs.main),
    'CPU kl/bare': ratio('kl', 'kb', (t) => t.cpuUs.main),
  };
  const shown = (name: string) => (ratios[name] === undefined ? 'not run' : ratios[name]!.toFixed(2));
  const atLeast = (name: string, bound: number) => ({
    met: ratios[name] === undefined ? undefined : ratios[name]! >= bound,
    measured: shown(name),
  });
  const noneDropped = (counted: Reports | undefined) =>
    counted
      ? {
          met: counted.dropped === 0 && counted.stored >= counted.answered,
          measured: `${counted.stored} stored / ${counted.answered} answered, ${counted.dropped} dropped`,
        }
      : { met: undefined, measured: 'not run' };
  const cpuBeside = (x: string, y: string) =>
    results.has(x) && results.has(y)
      ? ` (main thread ${r(x).cpuUs.main.toFixed(1)} against ${r(y).cpuUs.main.toFixed(1)} µs/req)`
      : '';
  const targets = [
    { name: 'd/c >= 0.5', ...atLeast('d/c', 0.5) },
    { name: 'e/c >= 0.9', ...atLeast('e/c', 0.9) },
    {
      name: 'p99 (d) <= 2 x p99 (c)',
      met: ratios['p99 d/c'] === undefined ? undefined : ratios['p99 d/c']! <= 2,
      measured: `${shown('p99 d/c')} x`,
    },
    stall
      ? {
          name: '/hello waits at most ~100 ms beside hostile JSON bodies (g)',
          met: stall.withBodies.maxMs <= 100,
          measured: `max ${stall.withBodies.maxMs.toFixed(0)} ms (alone: ${stall.alone.maxMs.toFixed(0)} ms)`,
        }
      : { name: '/hello waits at most ~100 ms beside hostile JSON bodies (g)', met: undefined, measured: 'not run' },
    { name: 'no report dropped (d)', ...noneDropped(reports.d) },
    { name: '(f)/(d) >= 1.35', ...atLeast('f/d', 1.35) },
    { name: 'no report dropped (f)', ...noneDropped(reports.f) },
    { name: '(j)/bare >= 0.9', ...atLeast('j/bare', 0.9), measured: `${shown('j/bare')}${cpuBeside('j', 'jb')}` },
    { name: '(k)/bare >= 0.9', ...atLeast('k/bare', 0.9), measured: `${shown('k/bare')}${cpuBeside('k', 'kb')}` },
    { name: '(kr)/bare >= 0.9', ...atLeast('kr/bare', 0.9), measured: `${shown('kr/bare')}${cpuBeside('kr', 'kb')}` },
    soak
      ? {
          name: 'RSS (d) < 200 MB after 1M requests',
          met: soak.rssMb < 200,
          measured: `${soak.rssMb.toFixed(0)} MB after ${soak.requests}`,
        }
      : { name: 'RSS (d) < 200 MB after 1M requests', met: undefined, measured: 'not run (use --soak)' },
  ];
  const lines = [
    `| target | req/s | p50 ms | p99 ms | RSS MB | CPU µs/req, main thread | all threads | main thread busy | load generator µs/req |`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|`,
    ...[...results].map(
      ([id, t]) =>
        `| (${id}) ${t.label} | ${t.rps.toFixed(0)} | ${t.p50Ms.toFixed(2)} | ${t.p99Ms.toFixed(2)} | ${t.rssMb.toFixed(0)} | ${t.cpuUs.main.toFixed(1)} | ${t.cpuUs.all.toFixed(1)} | ${(t.mainBusy * 100).toFixed(0)} % | ${t.cpuUs.generator.toFixed(1)} |`,
    ),
    '',
    `Ratios: ${Object.keys(ratios)
      .filter((name) => ratios[name] !== undefined)
      .map((name) => `${name} ${shown(name)}`)
      .join(', ')}.`,
    ...(results.has('c') && results.has('d') ? [limits(r('c'), r('d'))] : []),
    ...(results.has('c') && results.has('h') ? [floorLimits(ratios['h/c']!, r('h'))] : []),
    ...(results.has('d') && results.has('f') ? [workersLimits(r('d'), r('f'))] : []),
    ...(results.has('jd') ? [debugRouteCost(r('jd'), r('jb'), results.get('h'))] : []),
    ...(reports.d || reports.f
      ? [
          `Reports in (d): ${reports.d ? `${reports.d.stored} stored for ${reports.d.answered} requests answered, ${reports.d.dropped} dropped` : 'not run'}. In (f): ${reports.f ? `${reports.f.stored} stored for ${reports.f.answered}, ${reports.f.dropped} dropped` : 'not run'}.`,
        ]
      : []),
    ...(stall
      ? [
          '',
          '| (g) vigil production, GET /hello | req/s | p50 ms | p99 ms | max ms |',
          '|---|---:|---:|---:|---:|',
          ...(
            [
              ['alone', stall.alone],
              ['beside hostile JSON bodies', stall.withBodies],
            ] as const
          ).map(
            ([name, g]) =>
              `| ${name} | ${g.rps.toFixed(0)} | ${g.p50Ms.toFixed(2)} | ${g.p99Ms.toFixed(2)} | ${g.maxMs.toFixed(0)} |`,
          ),
          `Hostile bodies sent beside the load, by status: ${Object.entries(stall.bodies)
            .map(([status, count]) => `${status}: ${count}`)
            .join(', ')}; peak RSS ${stall.peakRssMb.toFixed(0)} MB.`,
        ]
      : []),
    '',
    '| target | met | measured |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.name} | ${t.met === undefined ? '-' : t.met ? 'yes' : 'NO'} | ${t.measured} |`),
  ];
  const table = lines.join('\n');
  process.stdout.write(`\n${table}\n`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const environment = {
    node: process.version,
    cores: cpus().length,
    cpu: cpus()[0]?.model,
    loader: tool,
    rounds,
    seconds,
    connections,
    only: only ?? null,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, 'bench/results', `${stamp}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), environment, results: Object.fromEntries(results), ratios, reports, stall, soak, targets }, null, 2)}\n`,
  );
  process.stdout.write(`\nWritten to ${file}\n`);
  if (flags.readme)
    writeBenchReadmeTable(
      `${table}\n\n_${new Date().toISOString().slice(0, 10)}, ${environment.cores} cores, Node ${environment.node}, ${tool} -t1 -c${connections}, ${rounds} rounds of ${seconds} s, medians._`,
    );
}

/**
 * Debug mode on an application route, a figure to watch: (jd) against bare Fastify on the
 * same routes, and its main thread against the floor's (h), a stored debug 404 with none of the rules.
 */
function debugRouteCost(jd: TargetResult, bare: TargetResult, h: TargetResult | undefined): string {
  const floor = h
    ? `; the floor (h) spends ${h.cpuUs.main.toFixed(1)} µs (jd/h ${(jd.rps / h.rps).toFixed(2)} in req/s)`
    : '; the floor (h) not run';
  return `Debug on application routes (jd): ${(jd.rps / bare.rps).toFixed(2)} of bare Fastify, main thread ${jd.cpuUs.main.toFixed(1)} µs/req against bare ${bare.cpuUs.main.toFixed(1)}${floor}.`;
}

/**
 * What bounds (d), from the CPU figures: a main thread busy nearly all the run answers
 * one request per its CPU time per request, whatever the load generator asks.
 */
function limits(c: TargetResult, d: TargetResult): string {
  const needed = c.cpuUs.main * 2;
  return (
    `What limits (d): its main thread spends ${d.cpuUs.main.toFixed(1)} µs of CPU per request against (c)'s ${c.cpuUs.main.toFixed(1)} µs, ` +
    `busy ${(d.mainBusy * 100).toFixed(0)} % of the run; d/c >= 0.5 needs ${needed.toFixed(1)} µs or less (bench/NOTES.md breaks the time down).`
  );
}

/**
 * What a floor reaches here: (h) does only what a stored debug 404 cannot do without (the
 * page with its token, the debug headers, a 1 KB report inserted in batches), in Fastify as
 * vigil configures it, with none of the pipeline's rules.
 */
function floorLimits(hOverC: number, h: TargetResult): string {
  return (
    `The floor (h), a stored debug 404 with none of the kernel's rules, reaches ${hOverC.toFixed(2)} of (c); ` +
    `its main thread spends ${h.cpuUs.main.toFixed(1)} µs of CPU per request (${h.cpuUs.all.toFixed(1)} over all threads).`
  );
}

/**
 * What bounds (f): every process on the two cores, the load generator's included. The CPU of
 * all of them per request caps the rate at cores / that, whatever the number of workers.
 */
function workersLimits(d: TargetResult, f: TargetResult): string {
  const cores = cpus().length;
  const ceiling = (t: TargetResult) => (cores * 1e6) / (t.cpuUs.all + t.cpuUs.generator);
  return (
    `What limits (f): per request, the primary ${f.cpuUs.root.toFixed(1)} µs, the workers ${(f.cpuUs.all - f.cpuUs.root).toFixed(1)} µs (main threads ${f.cpuUs.main.toFixed(1)} µs, ` +
    `each busy ${(f.mainBusy * 100).toFixed(0)} %), the load generator ${f.cpuUs.generator.toFixed(1)} µs: ${(f.cpuUs.all + f.cpuUs.generator).toFixed(1)} µs of CPU in all, ` +
    `at most ${ceiling(f).toFixed(0)} req/s on ${cores} cores (for (d): ${(d.cpuUs.all + d.cpuUs.generator).toFixed(1)} µs, ${ceiling(d).toFixed(0)} req/s).`
  );
}

function writeBenchReadmeTable(table: string): void {
  const file = join(ROOT, 'bench/README.md');
  const readme = readFileSync(file, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  if (!readme.includes(start) || !readme.includes(end)) throw new Error('bench/README.md has no bench markers');
  writeFileSync(
    file,
    `${readme.slice(0, readme.indexOf(start) + start.length)}\n${table}\n${readme.slice(readme.indexOf(end))}`,
  );
  process.stdout.write('bench/README.md table updated\n');
}

await main();
