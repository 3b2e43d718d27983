/** Starts each benchmark target as its own process and waits for the URL it prints. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');

export interface RunningTarget {
  url: string;
  pid: number;
  /** Everything the process printed so far. */
  output(): string;
  /** Resident memory now, from /proc (MB). */
  rssMb(): number;
  /** CPU time used so far, from /proc (ms): all threads, and the main (JavaScript) thread alone. */
  cpuMs(): { all: number; main: number };
  /** SIGTERM, then waits for the exit (vigil flushes its reports). */
  stop(): Promise<void>;
}

/** Starts `script`: compiled JavaScript as the README runs it, TypeScript through tsx. */
export async function startTarget(script: string, env: Record<string, string> = {}): Promise<RunningTarget> {
  const runner = script.endsWith('.js') ? ['--enable-source-maps'] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...runner, script], {
    cwd: ROOT,
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
    rssMb: () => rssMb(child.pid!),
    cpuMs: () => ({ all: cpuMs(`/proc/${child.pid!}/stat`), main: cpuMs(`/proc/${child.pid!}/task/${child.pid!}/stat`) }),
    stop: () => stop(child),
  };
}

/** Compiles vigil to dist/ (`npm run build`), so the bench measures it as it is deployed. */
export function buildVigil(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build failed:\n${built.stdout}${built.stderr}`);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
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
