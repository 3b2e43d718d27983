/** The environment as the kernel reads it: `.env` under the process's variables, and NODE_ENV. */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';

export type Env = Record<string, string | undefined>;

/** The environment as the kernel sees it: `.env` in `cwd` (when present) under `process.env`. */
export function environment(cwd = process.cwd(), env: Env = process.env): Env {
  const file = resolve(cwd, '.env');
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  return { ...fromFile, ...env };
}

export function raw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

/** The value of a setting that has a default: the table puts the default in `env` when the environment gives none. */
export function given(env: Env, name: string): string {
  const value = raw(env, name);
  if (value === undefined) throw new Error(`${name} has neither a value nor a default`);
  return value;
}

/**
 * The platform's variables read besides the settings: NODE_ENV decides APP_ENV's default; the
 * test runners' (node --test, Vitest, Jest) give a test run a report store of its own.
 */
const TEST_RUNNER_VARIABLES = ['NODE_TEST_CONTEXT', 'VITEST', 'JEST_WORKER_ID'] as const;
export const PLATFORM_VARIABLES = ['NODE_ENV', ...TEST_RUNNER_VARIABLES] as const;

/** True inside a test runner's process: `node --test`, Vitest or Jest set these in their workers. */
export function isTestRun(env: Env): boolean {
  return TEST_RUNNER_VARIABLES.some((name) => raw(env, name) !== undefined);
}

/** Every Node deployment sets it; few know APP_ENV. */
export function nodeEnvIsProduction(env: Env): boolean {
  return env.NODE_ENV?.trim().toLowerCase() === 'production';
}
