/**
 * Target (i): what capturing the application's activity costs. A debug-mode route makes 5
 * PostgreSQL queries (pg through instrumentation-pg and vigilSpanProcessor()) and one fetch
 * to a local upstream (`app-activity-service.ts`). Two processes serve it, with
 * PROFILER_CAPTURE_APP=1 and =0; this one sends them slices of 100 requests in turn and
 * reads each one's main-thread CPU from /proc (the event loop's busy time would count the
 * time the thread waited for a core). Each side's heap is its own, so neither pays for the
 * other's garbage, and slices this short see the same state of the machine. Pairs of
 * processes, started in turn, share the rounds: one pair's compiled code and heap do not set
 * the figure.
 *
 *   npm run bench -- --only i [--pairs 3] [--rounds 5] [--requests 1000]   rounds per pair
 *   BENCH_PROF=/tmp/prof npm run bench -- --only i     # and a CPU profile of each side
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../test/support/postgres.js';

export interface AppActivityResult {
  onMsPerRequest: number;
  offMsPerRequest: number;
  addedPercent: number;
  /** Each round's added share (on minus off, over off), in order. */
  roundPercents: number[];
  /** The side without capture, every thread of its process (the report's writer too), ms per request. */
  offAllThreadsMsPerRequest: number;
  /** The main thread's added CPU over that whole CPU: the median round. */
  addedOfAllThreadsPercent: number;
  /** Every thread's added CPU (the writer's larger reports too) over the whole CPU without capture: the median round. */
  allThreadsAddedPercent: number;
  /** Each round's all-thread added share, in order. */
  allThreadsRoundPercents: number[];
}

/** A thread's CPU time so far (ms), from /proc; the process's main thread by default. */
function threadCpuMs(pid: number, thread = pid): number {
  return Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** Every thread's CPU time so far (ms): a thread that ended meanwhile is not counted, none do here. */
function processCpuMs(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).reduce((sum, thread) => sum + threadCpuMs(pid, Number(thread)), 0);
}

/** Requests each side of a pair is sent before its rounds: the hot functions compiled, the call sites learnt. */
const WARM_UP = 3000;
/** Requests a side is sent before the other's turn. */
const SLICE = 100;
/** Longer than the writer's flush delay (20 ms): a round's last reports are handed over in it. */
const SETTLE_MS = 100;

interface Side {
  child: ChildProcess;
  pid: number;
  url: string;
}

async function startSide(capture: '1' | '0', dsn: string, upstream: number): Promise<Side> {
  const child = spawn(
    process.execPath,
    [
      // BENCH_PROF=dir: a CPU profile of each side, in dir/1 and dir/0.
      ...(process.env.BENCH_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${join(process.env.BENCH_PROF, capture)}`, '--cpu-prof-interval', '100']
        : []),
      '--import',
      'tsx',
      fileURLToPath(new URL('./app-activity-service.ts', import.meta.url)),
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, PROFILER_CAPTURE_APP: capture, BENCH_DSN: dsn, BENCH_UPSTREAM: String(upstream) },
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`the capture=${capture} service exited (${code})`)));
  });
  return { child, pid: child.pid!, url: `http://127.0.0.1:${port}/orders` };
}

async function stopSide(side: Side | undefined): Promise<void> {
  if (side === undefined || side.child.exitCode !== null || side.child.signalCode !== null) return;
  const exited = new Promise((resolve) => side.child.once('exit', resolve));
  side.child.send('stop');
  await exited;
}

export async function runAppActivity({ rounds = 5, requests = 1000, pairs = 3 } = {}): Promise<AppActivityResult> {
  const postgres = await startPostgres();
  const upstream = createServer((_req, res) => res.end('{"ok":true}'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const one = (url: string) =>
    new Promise<void>((resolve, reject) =>
      get(url, { agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      }).on('error', reject),
    );
  const send = async (url: string, count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < count) await one(url);
      }),
    );
  };

  const dsn = await postgres.database('bench');
  const upstreamPort = (upstream.address() as AddressInfo).port;
  let started: Side[] = [];
  const perRequest: Record<'on' | 'off', number[]> = { on: [], off: [] };
  const allThreads: Record<'on' | 'off', number[]> = { on: [], off: [] };
  try {
    // Each pair of processes compiles and lays out its heap its own way, which moves a run's
    // rounds together: `pairs` pairs, started one after the other, share the rounds.
    for (let pair = 0; pair < pairs; pair++) {
      await Promise.all(started.map(stopSide));
      started = [];
      // One by one, so that a side that fails to start leaves only the ones before it to stop.
      for (const capture of ['1', '0'] as const) started.push(await startSide(capture, dsn, upstreamPort));
      await measurePair({ on: started[0]!, off: started[1]! });
    }
  } finally {
    await Promise.all(started.map(stopSide));
    agent.destroy();
    upstream.close();
    await postgres.close();
  }

  async function measurePair(sides: Record<'on' | 'off', Side>): Promise<void> {
    for (const side of Object.values(sides)) await send(side.url, WARM_UP); // warm-up
    for (let round = 0; round < rounds; round++) {
      const since = { on: threadCpuMs(sides.on.pid), off: threadCpuMs(sides.off.pid) };
      const allSince = { on: processCpuMs(sides.on.pid), off: processCpuMs(sides.off.pid) };
      for (let sent = 0; sent < requests; sent += SLICE) {
        await send(sides.on.url, SLICE);
        await send(sides.off.url, SLICE);
      }
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      for (const name of ['on', 'off'] as const)
        perRequest[name].push((threadCpuMs(sides[name].pid) - since[name]) / requests);
      for (const name of ['on', 'off'] as const)
        allThreads[name].push((processCpuMs(sides[name].pid) - allSince[name]) / requests);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const roundPercents = perRequest.on.map((on, i) => ((on - perRequest.off[i]!) / perRequest.off[i]!) * 100);
  const allThreadsRoundPercents = allThreads.on.map((on, i) => ((on - allThreads.off[i]!) / allThreads.off[i]!) * 100);
  return {
    onMsPerRequest: median(perRequest.on),
    offMsPerRequest: median(perRequest.off),
    addedPercent: median(roundPercents),
    roundPercents,
    offAllThreadsMsPerRequest: median(allThreads.off),
    addedOfAllThreadsPercent: median(
      perRequest.on.map((on, i) => ((on - perRequest.off[i]!) / allThreads.off[i]!) * 100),
    ),
    allThreadsAddedPercent: median(allThreadsRoundPercents),
    allThreadsRoundPercents,
  };
}
