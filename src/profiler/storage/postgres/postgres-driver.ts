/**
 * node-postgres, loaded when a PostgreSQL store first connects: a kernel or a command that
 * keeps its reports in SQLite never loads it, nor pays its start-up CPU.
 */
import type pg from 'pg';
import { importOptional } from '../../../optional-package.js';

let driver: typeof pg | undefined;

export async function loadPg(): Promise<typeof pg> {
  driver ??= (await importOptional('pg', 'A PostgreSQL report store', () => import('pg'))).default;
  return driver;
}

/** The driver once a store has loaded it; undefined before, when no error of it can exist yet. */
export function loadedPg(): typeof pg | undefined {
  return driver;
}
