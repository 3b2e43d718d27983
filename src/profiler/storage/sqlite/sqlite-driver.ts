/**
 * The SQLite driver under the report store: the few calls the store makes (better-sqlite3's
 * shape), answered by `node:sqlite` where this Node has it, and by better-sqlite3 (an
 * optional peer) otherwise, as on Node 20. Either is loaded when the first file is opened.
 * Errors carry SQLite's code name (`SQLITE_FULL`, `SQLITE_CONSTRAINT_UNIQUE`) on both, as
 * `sqlite-faults.ts` reads them.
 */
import { createRequire } from 'node:module';
import { requireOptional } from '../../../optional-package.js';
import type { OpenOptions, SqliteDatabase } from './sqlite-connection.js';
import { loadNodeSqlite, NodeSqliteDatabase, type NodeSqlite } from './sqlite-node-driver.js';

export type { OpenOptions, SqliteDatabase, SqliteStatement, SqliteTransaction, SqlValue } from './sqlite-connection.js';

type BetterSqlite3 = new (file: string, options?: OpenOptions) => SqliteDatabase;
type Driver = { name: 'node:sqlite'; module: NodeSqlite } | { name: 'better-sqlite3'; module: BetterSqlite3 };

let driver: Driver | undefined;

function load(): Driver {
  const nodeSqlite = loadNodeSqlite();
  if (nodeSqlite) return { name: 'node:sqlite', module: nodeSqlite };
  const feature = `The SQLite report store on Node ${process.versions.node}`;
  const require = createRequire(import.meta.url);
  return {
    name: 'better-sqlite3',
    module: requireOptional('better-sqlite3', feature, () => require('better-sqlite3') as BetterSqlite3),
  };
}

/** Which driver this process's connections use; loads it. */
export function sqliteDriver(): Driver['name'] {
  driver ??= load();
  return driver.name;
}

/** Opens (or creates, unless `fileMustExist` or `readonly`) the SQLite file; waits up to 5 s for another connection's lock. */
export function openSqlite(file: string, options: OpenOptions = {}): SqliteDatabase {
  driver ??= load();
  if (driver.name === 'better-sqlite3') return new driver.module(file, options);
  return NodeSqliteDatabase.open(driver.module, file, options);
}
