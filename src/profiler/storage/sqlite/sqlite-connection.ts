/** What a connection to an SQLite file offers the report store, whichever driver answers (`sqlite-driver.ts`). */

/** A value SQLite stores or gives back: a BLOB comes back as a Uint8Array (a Buffer from better-sqlite3). */
export type SqlValue = null | number | bigint | string | Uint8Array;

export interface SqliteStatement {
  /** The first row (an object without prototype under node:sqlite), or undefined; after `pluck()`, its first column. */
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
  /** The rows one at a time, each read from the file when asked for. */
  iterate(...params: SqlValue[]): IterableIterator<unknown>;
  run(...params: SqlValue[]): { changes: number };
  /** From now on, rows are read as their first column. */
  pluck(): this;
}

/** A function run in a transaction: committed when it returns, rolled back when it throws. */
export interface SqliteTransaction<A extends unknown[], R> {
  (...args: A): R;
  /** Begun with the write lock taken (BEGIN IMMEDIATE). */
  immediate(...args: A): R;
}

export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  /** `PRAGMA source`: every row, or with `simple` the first column of the first. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Nested in another transaction, it is a savepoint. */
  transaction<A extends unknown[], R>(run: (...args: A) => R): SqliteTransaction<A, R>;
  readonly inTransaction: boolean;
  close(): void;
}

export interface OpenOptions {
  readonly?: boolean;
  fileMustExist?: boolean;
}
