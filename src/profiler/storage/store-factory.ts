/**
 * The one place a report store is made: the kernel, the command line, the tests and the
 * bench get theirs here, from PROFILER_DSN (`config.profilerStore`): a SQLite file, or a
 * PostgreSQL database shared by several instances. The store comes back unopened: its
 * owner calls `open()`.
 */
import type { StoreDsn } from '../../config/index.js';
import { isMissing } from '../../optional-package.js';
import { PostgresReportStore, type PostgresStoreOptions } from './postgres/postgres-store.js';
import type { ReportStore } from './report-store.js';
import { sqliteDriver } from './sqlite/sqlite-driver.js';
import { SqliteReportStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';

export type ReportStoreOptions = SqliteStoreOptions & PostgresStoreOptions;

export function createReportStore(dsn: StoreDsn, options: ReportStoreOptions = {}): ReportStore {
  switch (dsn.scheme) {
    case 'sqlite':
      return new SqliteReportStore(dsn.file, options);
    case 'postgres':
      return new PostgresReportStore(dsn, options);
  }
}

/**
 * Why the store `dsn` names cannot be made on this Node, when the reason is a missing optional
 * package (better-sqlite3, for SQLite on Node 20); undefined when it can.
 */
export function missingStoreDriver(dsn: StoreDsn): string | undefined {
  if (dsn.scheme !== 'sqlite') return undefined;
  try {
    sqliteDriver();
    return undefined;
  } catch (error) {
    if (!isMissing((error as Error).cause, 'better-sqlite3')) throw error;
    return (error as Error).message;
  }
}
