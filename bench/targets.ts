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

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    child.once('exit', () => resolveStop());
    child.kill('SIGTERM');
  });
}
