/** Starts each benchmark target as its own process and waits for the URL it prints. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');

export interface CpuMs {
  all: number;
  main: number;
  root: number;
}

export interface RunningTarget {
  url: string;
  pid: number;
  /** Everything the process printed so far. */
  output(): string;
  /** Resident memory now, from /proc (MB): the process and every process it started (WORKERS). */
  rssMb(): number;
  /**
   * CPU time used so far, from /proc (ms), by the process and every process it started: all
   * their threads; their main (JavaScript) threads; and the first process alone (with
   * WORKERS, the primary), all its threads.
   */
  cpuMs(): CpuMs;
  /** SIGTERM, then waits for the exit (vigil flushes its reports). */
  stop(): Promise<void>;
}

/**
 * Starts `script`: compiled JavaScript as the README runs it, TypeScript through tsx. It
 * runs from `cwd`, the project whose files count as its own (another tree's, for `bench/ab.ts`).
 */
export async function startTarget(
  script: string,
  env: Record<string, string> = {},
  cwd = ROOT,
): Promise<RunningTarget> {
  const runner = script.endsWith('.js') ? ['--enable-source-maps'] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...runner, script], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 30_000);
    child.stdout!.on('data', () => {
      const match = /listening on (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)));
  });
  return {
    url,
    pid: child.pid!,
    output: () => output,
    rssMb: () => processTree(child.pid!).reduce((sum, pid) => sum + rssMb(pid), 0),
    cpuMs: () => treeCpuMs(child.pid!),
    stop: () => stop(child),
  };
}

/** Compiles vigil to dist/ (`npm run build`) in `root`, so the bench measures it as it is deployed. */
export function buildVigil(root = ROOT): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build failed:\n${built.stdout}${built.stderr}`);
}

/** `pid` and its descendants, from /proc (any of a process's threads may have started a child). */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    const parent = tree[i]!;
    for (const task of gone(() => readdirSync(`/proc/${parent}/task`), [])) {
      const children = gone(() => readFileSync(`/proc/${parent}/task/${task}/children`, 'latin1'), '');
      tree.push(...children.trim().split(/\s+/).filter(Boolean).map(Number));
    }
  }
  return tree;
}

/** A target is quiet once its threads use less than this share of a core over a step. */
const QUIET_SHARE = 0.05;
const SETTLE_STEP_MS = 100;

/**
 * Waits until `target` is quiet, or `maxMs` passed: what a round leaves running (a debug
 * target's reports still being written) is then its own, and not on the machine while the
 * next target is measured. Returns the milliseconds waited.
 */
export async function settle(target: RunningTarget, maxMs = 15_000): Promise<number> {
  const started = performance.now();
  let last = target.cpuMs().all;
  while (performance.now() - started < maxMs) {
    await new Promise((resolveStep) => setTimeout(resolveStep, SETTLE_STEP_MS));
    const now = target.cpuMs().all;
    const quiet = now - last < SETTLE_STEP_MS * QUIET_SHARE;
    last = now;
    if (quiet) break;
  }
  return performance.now() - started;
}

/** A process that ended between listing and reading counts for nothing. */
function gone<T>(read: () => T, otherwise: T): T {
  try {
    return read();
  } catch {
    return otherwise;
  }
}

function treeCpuMs(root: number): CpuMs {
  const used = { all: 0, main: 0, root: 0 };
  for (const pid of processTree(root)) {
    const all = gone(() => cpuMs(`/proc/${pid}/stat`), 0);
    used.all += all;
    used.main += gone(() => cpuMs(`/proc/${pid}/task/${pid}/stat`), 0);
    if (pid === root) used.root = all;
  }
  return used;
}

/**
 * CPU time of this process (the bench, where autocannon runs) and of its children that have
 * ended and been waited for (wrk runs): the load generator's, measured around a run.
 */
export function loadGeneratorCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_MS;
}

function rssMb(pid: number): number {
  const status = gone(() => readFileSync(`/proc/${pid}/status`, 'utf8'), '');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Linux reports CPU time in USER_HZ ticks, 100 per second. */
const TICKS_PER_MS = 100 / 1000;

/** utime + stime of a process (all its threads) or of one thread. */
function cpuMs(statFile: string): number {
  // The command name, in parentheses, may hold spaces: fields are counted after it.
  const stat = readFileSync(statFile, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    child.once('exit', () => resolveStop());
    child.kill('SIGTERM');
  });
}
