/**
 * What can happen to the report store's file while the service uses it, told apart: a disk
 * with no room (the store waits and is opened again later), the file deleted or replaced
 * under it (its inode changed), or its pages damaged (SQLite's quick check fails). The
 * write thread notices the last two and the store (`sqlite-store.ts`) recovers from them.
 */
import { statSync } from 'node:fs';
import type { SqliteDatabase } from './sqlite-driver.js';

/** A write thread's reply code: the file at the store's path is no longer the one it wrote (deleted or replaced). */
export const FILE_LOST = 'VIGIL_STORE_FILE_LOST';
/** A write thread's reply code: the file's pages are damaged; the message says how, in SQLite's words. */
export const FILE_DAMAGED = 'VIGIL_STORE_FILE_DAMAGED';

/** Errors after which the file may be damaged: SQLite's quick check says whether it is. */
const MAYBE_DAMAGED = /^SQLITE_(CORRUPT|NOTADB|IOERR)/;
/** A full disk fails every write with an I/O error: the quick check it calls for runs at most this often. */
const IO_ERROR_CHECK_INTERVAL_MS = 10_000;

/**
 * SQLite's full disk, its failures to write or grow a file (a file-size limit is an I/O
 * error to it), and Node's. A read error (a directory at the path) is none of them.
 */
const NO_ROOM = /^(SQLITE_FULL|SQLITE_IOERR_(WRITE|SHMOPEN|SHMSIZE|TRUNCATE|FSYNC)|ENOSPC|EDQUOT|EFBIG)$/;

export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The file's device and inode, or undefined when nothing is at `file`. */
export function fileIdentity(file: string): FileIdentity | undefined {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats && { dev: stats.dev, ino: stats.ino };
}

export function sameFile(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

/**
 * A disk that has no room for the store now (full, over a quota or a file-size limit), as
 * SQLite or Node reports it, here or in a cause: the same open may work once there is room.
 */
export function isNoRoom(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = String((cause as { code?: unknown }).code);
    if (NO_ROOM.test(code)) return true;
  }
  return false;
}

/**
 * The write connection's watch on its file: whether the path still names the file it
 * opened (a stat, after each command), and whether a failed write left it damaged.
 * While the connection holds the file open its inode cannot be reused, so a new file at
 * the path always has another identity.
 */
export class FileWatch {
  private readonly identity: FileIdentity | undefined;
  private lastIoCheck = -Infinity;

  constructor(private readonly file: string) {
    this.identity = fileIdentity(file);
  }

  /** Why the path no longer names the file this connection writes, or undefined while it does. */
  lost(): string | undefined {
    const now = fileIdentity(this.file);
    if (sameFile(now, this.identity)) return undefined;
    return now === undefined ? 'it was deleted' : 'it was replaced by another file';
  }

  /** After `error`, what is wrong with the file's pages, or undefined when they are sound (or the error says nothing of them). */
  damageAfter(db: SqliteDatabase, error: unknown): string | undefined {
    const code = String((error as { code?: unknown }).code);
    if (!MAYBE_DAMAGED.test(code)) return undefined;
    if (code.startsWith('SQLITE_IOERR')) {
      const now = Date.now();
      if (now - this.lastIoCheck < IO_ERROR_CHECK_INTERVAL_MS) return undefined;
      this.lastIoCheck = now;
    }
    try {
      const check = db.pragma('quick_check(1)', { simple: true });
      return check === 'ok' ? undefined : String(check).replace(/\s+/g, ' ').trim();
    } catch (checkError) {
      return /^SQLITE_(CORRUPT|NOTADB)/.test(String((checkError as { code?: unknown }).code))
        ? (checkError as Error).message
        : undefined;
    }
  }
}

/**
 * A store thread's one connection, and the failure that ended it: once the file is lost or
 * damaged, the connection is closed and every later command is answered with that failure.
 */
export class ThreadConnection<C extends { db: SqliteDatabase }> {
  current: C | undefined;
  private gone: { code: string; message: string } | undefined;

  /** The open connection, opened with `open` if there is none; throws what ended it, if anything did. */
  use(open?: () => C): C {
    if (this.gone) throw Object.assign(new Error(this.gone.message), { code: this.gone.code });
    if (this.current) return this.current;
    if (!open) throw new Error('the connection is not open');
    return (this.current = open());
  }

  close(): void {
    this.current?.db.close();
    this.current = undefined;
  }

  /** Closes the connection to a lost or damaged file: from now on every command is answered with `code`. */
  give(code: string, message: string): never {
    this.gone = { code, message };
    try {
      this.current?.db.close();
    } catch {
      // A damaged file may fail even its close; the connection is given up either way.
    }
    this.current = undefined;
    throw Object.assign(new Error(message), { code });
  }
}
