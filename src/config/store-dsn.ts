/** PROFILER_DSN: where reports are stored, a SQLite file or a PostgreSQL database. */
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { raw, type Env } from './environment.js';

/** Where reports are stored: a SQLite file, or a PostgreSQL database that several machines share. */
export type StoreDsn = SqliteDsn | PostgresDsn;

export interface SqliteDsn {
  scheme: 'sqlite';
  /** Absolute path of the SQLite file. */
  file: string;
}

export interface PostgresDsn {
  scheme: 'postgres';
  /** The URL as given, password included: for the driver only, never for a message. */
  url: string;
  /** The URL without its password and query, for messages (`postgres://vigil@db:5432/vigil`). */
  location: string;
  /** Connections to the database per process at most (`PROFILER_POOL_SIZE`). */
  poolSize: number;
}

const POSTGRES_FORM = 'postgres://user:password@host:port/database';
const SUPPORTED_STORES = `the supported schemes are sqlite:<path> (a SQLite file, e.g. sqlite:var/profiler.sqlite) and ${POSTGRES_FORM} (PostgreSQL)`;

/**
 * `sqlite:<path>`, the path resolved against `cwd`, or a `postgres://` (`postgresql://`)
 * URL. A refusal repeats no value but a plain path: any other may hold a password.
 */
export function storeDsn(env: Env, name: string, cwd: string): SqliteDsn | Omit<PostgresDsn, 'poolSize'> | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
  if (scheme === undefined) {
    // Only a plain path is repeated: anything else may be a mistyped URL with its password.
    const shown = /^[\w./~-]+$/.test(value) ? `"${value}"` : 'the value';
    throw new ConfigError(name, `${shown} has no scheme; ${SUPPORTED_STORES}`);
  }
  const lowerScheme = scheme.toLowerCase();
  if (lowerScheme === 'postgres' || lowerScheme === 'postgresql') return postgresDsn(name, value);
  if (lowerScheme !== 'sqlite')
    throw new ConfigError(name, `the scheme "${scheme}:" is not supported; ${SUPPORTED_STORES}`);
  const file = value.slice(scheme.length + 1);
  if (file.trim() === '')
    throw new ConfigError(name, 'sqlite: needs the path of the SQLite file, e.g. sqlite:var/profiler.sqlite');
  return { scheme: 'sqlite', file: resolve(cwd, file) };
}

function postgresDsn(name: string, value: string): Omit<PostgresDsn, 'poolSize'> {
  const invalid = (problem: string) => new ConfigError(name, `${problem}; the form is ${POSTGRES_FORM}`);
  let url: URL;
  let database: string;
  try {
    url = new URL(value);
    database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  } catch {
    throw invalid('not a valid PostgreSQL URL');
  }
  if (url.hostname === '') throw invalid('the PostgreSQL URL has no host');
  if (database === '') throw invalid('the PostgreSQL URL names no database');
  const user = url.username === '' ? '' : `${url.username}@`;
  return { scheme: 'postgres', url: value, location: `${url.protocol}//${user}${url.host}${url.pathname}` };
}
