/**
 * The report store's SQLite calls on `node:sqlite` (`sqlite-driver.ts`): better-sqlite3's
 * pluck, pragma and transaction helpers written over `DatabaseSync`, and its errors given
 * SQLite's code name, which node:sqlite keeps as a number (`errcode`).
 */
import { existsSync } from 'node:fs';
import type { OpenOptions, SqliteDatabase, SqliteStatement, SqliteTransaction, SqlValue } from './sqlite-connection.js';

/** The part of `node:sqlite` used here (Node 20's types do not have it). */
interface NodeStatement {
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
  /** From Node 22.13. */
  iterate?(...params: SqlValue[]): IterableIterator<unknown>;
  run(...params: SqlValue[]): { changes: number | bigint };
  setReturnArrays(enabled: boolean): void;
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction: boolean;
}
export interface NodeSqlite {
  DatabaseSync: new (file: string, options: { readOnly: boolean; timeout: number }) => NodeDatabase;
}

/** How long a connection waits for another's lock, as better-sqlite3 does by default. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * `node:sqlite`, when this Node has it with the calls used here; undefined otherwise (Node
 * 20, older 22 releases). Node 22 announces it as experimental on stderr once per thread:
 * that line is the driver's business, not the service's output.
 */
export function loadNodeSqlite(): NodeSqlite | undefined {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (String(warning).startsWith('SQLite is an experimental feature')) return;
    return Reflect.apply(emitWarning, process, [warning, ...rest]);
  } as typeof process.emitWarning;
  let module: (NodeSqlite & { StatementSync: { prototype: object } }) | undefined;
  try {
    module = process.getBuiltinModule('node:sqlite') as typeof module;
  } finally {
    process.emitWarning = emitWarning;
  }
  if (!module || !('setReturnArrays' in module.StatementSync.prototype)) return undefined;
  // `isTransaction` is a connection's own property.
  const probe = new module.DatabaseSync(':memory:', { readOnly: false, timeout: 0 });
  const complete = typeof probe.isTransaction === 'boolean';
  probe.close();
  return complete ? module : undefined;
}

/** SQLite's result codes by number; an extended code is its primary one plus a number times 256. */
const PRIMARY = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
  'NOTICE',
  'WARNING',
];
const EXTENDED: Record<string, readonly string[]> = {
  OK: ['LOAD_PERMANENTLY', 'SYMLINK'],
  ERROR: ['MISSING_COLLSEQ', 'RETRY', 'SNAPSHOT', 'RESERVESIZE', 'KEY', 'UNABLE'],
  ABORT: ['', 'ROLLBACK'],
  BUSY: ['RECOVERY', 'SNAPSHOT', 'TIMEOUT'],
  LOCKED: ['SHAREDCACHE', 'VTAB'],
  READONLY: ['RECOVERY', 'CANTLOCK', 'ROLLBACK', 'DBMOVED', 'CANTINIT', 'DIRECTORY'],
  IOERR: [
    'READ',
    'SHORT_READ',
    'WRITE',
    'FSYNC',
    'DIR_FSYNC',
    'TRUNCATE',
    'FSTAT',
    'UNLOCK',
    'RDLOCK',
    'DELETE',
    'BLOCKED',
    'NOMEM',
    'ACCESS',
    'CHECKRESERVEDLOCK',
    'LOCK',
    'CLOSE',
    'DIR_CLOSE',
    'SHMOPEN',
    'SHMSIZE',
    'SHMLOCK',
    'SHMMAP',
    'SEEK',
    'DELETE_NOENT',
    'MMAP',
    'GETTEMPPATH',
    'CONVPATH',
    'VNODE',
    'AUTH',
    'BEGIN_ATOMIC',
    'COMMIT_ATOMIC',
    'ROLLBACK_ATOMIC',
    'DATA',
    'CORRUPTFS',
    'IN_PAGE',
    'BADKEY',
    'CODEC',
  ],
  CORRUPT: ['VTAB', 'SEQUENCE', 'INDEX'],
  CANTOPEN: ['NOTEMPDIR', 'ISDIR', 'FULLPATH', 'CONVPATH', 'DIRTYWAL', 'SYMLINK'],
  CONSTRAINT: [
    'CHECK',
    'COMMITHOOK',
    'FOREIGNKEY',
    'FUNCTION',
    'NOTNULL',
    'PRIMARYKEY',
    'TRIGGER',
    'UNIQUE',
    'VTAB',
    'ROWID',
    'PINNED',
    'DATATYPE',
  ],
  NOTICE: ['RECOVER_WAL', 'RECOVER_ROLLBACK', 'RBU'],
  WARNING: ['AUTOINDEX'],
  AUTH: ['USER'],
};

/** `SQLITE_CONSTRAINT_UNIQUE` for 2067; an extended code unknown here is named by its primary one. */
function resultCodeName(code: number): string {
  const primary = code === 100 ? 'ROW' : code === 101 ? 'DONE' : PRIMARY[code & 0xff];
  if (primary === undefined) return `UNKNOWN_SQLITE_ERROR_${code}`;
  const extended = code >> 8 === 0 ? '' : (EXTENDED[primary]?.[(code >> 8) - 1] ?? '');
  return extended ? `SQLITE_${primary}_${extended}` : `SQLITE_${primary}`;
}

/** node:sqlite's error, its `code` made SQLite's name, as better-sqlite3 gives it. */
function named(error: unknown): unknown {
  const fields = error as { code?: unknown; errcode?: unknown };
  if (fields?.code === 'ERR_SQLITE_ERROR' && typeof fields.errcode === 'number')
    fields.code = resultCodeName(fields.errcode);
  return error;
}

class NodeSqliteStatement implements SqliteStatement {
  private plucking = false;

  constructor(private readonly statement: NodeStatement) {}

  get(...params: SqlValue[]): unknown {
    try {
      const row = this.statement.get(...params);
      return this.plucking ? (row as unknown[] | undefined)?.[0] : row;
    } catch (error) {
      throw named(error);
    }
  }

  all(...params: SqlValue[]): unknown[] {
    try {
      const rows = this.statement.all(...params);
      return this.plucking ? rows.map((row) => (row as unknown[])[0]) : rows;
    } catch (error) {
      throw named(error);
    }
  }

  *iterate(...params: SqlValue[]): IterableIterator<unknown> {
    if (this.statement.iterate === undefined) return yield* this.all(...params);
    try {
      for (const row of this.statement.iterate(...params)) yield this.plucking ? (row as unknown[])[0] : row;
    } catch (error) {
      throw named(error);
    }
  }

  run(...params: SqlValue[]): { changes: number } {
    try {
      return { changes: Number(this.statement.run(...params).changes) };
    } catch (error) {
      throw named(error);
    }
  }

  pluck(): this {
    this.statement.setReturnArrays(true);
    this.plucking = true;
    return this;
  }
}

/** A transaction's statements: begin, commit, and undo on failure. */
type Steps = readonly [begin: NodeStatement, commit: NodeStatement, undo: NodeStatement];

export class NodeSqliteDatabase implements SqliteDatabase {
  /** Transaction control, prepared once per connection. */
  private steps: { deferred: Steps; immediate: Steps; nested: Steps } | undefined;

  private constructor(private readonly db: NodeDatabase) {}

  static open(sqlite: NodeSqlite, file: string, options: OpenOptions): NodeSqliteDatabase {
    // node:sqlite creates a missing file unless read-only; better-sqlite3's option says not to.
    if (options.fileMustExist && !options.readonly && file !== ':memory:' && !existsSync(file)) {
      throw Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' });
    }
    try {
      return new NodeSqliteDatabase(
        new sqlite.DatabaseSync(file, { readOnly: options.readonly === true, timeout: BUSY_TIMEOUT_MS }),
      );
    } catch (error) {
      throw named(error);
    }
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  prepare(sql: string): SqliteStatement {
    return new NodeSqliteStatement(this.prepareRaw(sql));
  }

  exec(sql: string): void {
    try {
      this.db.exec(sql);
    } catch (error) {
      throw named(error);
    }
  }

  pragma(source: string, options?: { simple?: boolean }): unknown {
    const statement = this.prepare(`PRAGMA ${source}`);
    return options?.simple ? statement.pluck().get() : statement.all();
  }

  transaction<A extends unknown[], R>(run: (...args: A) => R): SqliteTransaction<A, R> {
    const inSteps =
      (kind: 'deferred' | 'immediate') =>
      (...args: A): R => {
        this.steps ??= this.prepareSteps();
        const nested = this.db.isTransaction;
        const [begin, commit, undo] = nested ? this.steps.nested : this.steps[kind];
        this.step(begin);
        try {
          const result = run(...args);
          this.step(commit);
          return result;
        } catch (error) {
          // SQLite may have rolled back already (a full disk): then there is nothing to undo.
          if (this.db.isTransaction) {
            this.step(undo);
            if (nested) this.step(commit);
          }
          throw error;
        }
      };
    return Object.assign(inSteps('deferred'), { immediate: inSteps('immediate') });
  }

  close(): void {
    try {
      this.db.close();
    } catch (error) {
      throw named(error);
    }
  }

  private prepareRaw(sql: string): NodeStatement {
    try {
      return this.db.prepare(sql);
    } catch (error) {
      throw named(error);
    }
  }

  private prepareSteps() {
    const prepare = (...sql: [string, string, string]) => sql.map((one) => this.prepareRaw(one)) as unknown as Steps;
    return {
      deferred: prepare('BEGIN', 'COMMIT', 'ROLLBACK'),
      immediate: prepare('BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK'),
      nested: prepare('SAVEPOINT vigil_nested', 'RELEASE vigil_nested', 'ROLLBACK TO vigil_nested'),
    };
  }

  private step(statement: NodeStatement): void {
    try {
      statement.run();
    } catch (error) {
      throw named(error);
    }
  }
}
