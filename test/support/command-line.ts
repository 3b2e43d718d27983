/** Runs the `vigil` command (bin/vigil.js) as a user would, and the processes tests start to their end. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { builtFile } from './kernel-build.js';
import { ROOT } from './root.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node <args>` from the repository with only PATH and `env` in its environment; a
 * process that hangs is a failure too: it is stopped after 20 s and seen as exit code null.
 */
export function runNode(
  args: readonly string[],
  env: Record<string, string>,
  user: { uid?: number; gid?: number } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, ...user });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `vigil <args>` as a user runs it, from the build: the `run` of `src/cli/main.ts` that
 * bin/vigil.js calls, without the CPU of `tsx` (about 0.3 s a command). A ROUTES module with
 * a built counterpart is replaced by it, as for the services the tests start.
 */
export function runVigil(args: readonly string[], env: Record<string, string>): Promise<Run> {
  const routes = env.ROUTES ? builtFile(env.ROUTES) : undefined;
  return runNode(
    ['--enable-source-maps', builtFile('test/support/vigil-cli.ts')!, ...args],
    routes === undefined ? env : { ...env, ROUTES: routes },
  );
}

/** `vigil <args>` through bin/vigil.js itself, which runs the sources through `tsx` in a checkout. */
export function runVigilBin(args: readonly string[], env: Record<string, string>): Promise<Run> {
  return runNode([join(ROOT, 'bin/vigil.js'), ...args], env);
}
