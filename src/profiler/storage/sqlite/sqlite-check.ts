/**
 * The check of the report store's file before it is opened: SQLite's quick check of every
 * page and a read of the whole schema. It reads the whole file, so the store runs it on its
 * write thread. A damaged file is moved aside with its -wal and -shm (nothing is deleted)
 * and a new store created, or, where the caller cannot repair, named in a {@link ReportStoreError}.
 */
import { existsSync, renameSync } from 'node:fs';
import { openSqlite, type SqliteDatabase } from './sqlite-driver.js';
import { ReportStoreError } from '../report-store.js';
import { schemaProblem } from './sqlite-schema.js';

export interface MovedAside {
  file: string;
  /** Where the damaged file is now; its -wal and -shm, if any, beside it with the same suffixes. */
  movedTo: string;
  /** What is wrong with it, in SQLite's words. */
  reason: string;
}

/** A damaged file, as SQLite reports it: not a database, or a page or the schema corrupt. */
function isDamage(error: unknown): boolean {
  return /^SQLITE_(NOTADB|CORRUPT)/.test(String((error as { code?: unknown }).code));
}

/**
 * What is wrong with an existing store file, or undefined when it is sound. `wholeFile`
 * false: its header and schema only, for a file too large to read whole before serving.
 */
export function damageOf(file: string, wholeFile = true): string | undefined {
  let db: SqliteDatabase | undefined;
  try {
    // Read-only: the check never writes to the file it may have to keep as evidence.
    db = openSqlite(file, { readonly: true, fileMustExist: true });
    const check = wholeFile ? db.pragma('quick_check(1)', { simple: true }) : 'ok';
    if (check !== 'ok') return String(check).replace(/\s+/g, ' ').trim();
    return schemaProblem(db);
  } catch (error) {
    if (isDamage(error)) return (error as Error).message;
    throw new ReportStoreError(file, `the report store ${file} cannot be opened: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    db?.close();
  }
}

/** `profiler.sqlite.damaged-20260102T100000Z`, with -wal and -shm following it; a number is added if that name is taken. */
export function moveAside(file: string, reason: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  let movedTo = `${file}.damaged-${stamp}`;
  for (let n = 2; existsSync(movedTo); n++) movedTo = `${file}.damaged-${stamp}-${n}`;
  try {
    renameSync(file, movedTo);
    for (const suffix of ['-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, movedTo + suffix);
  } catch (error) {
    throw new ReportStoreError(
      file,
      `the report store ${file} is damaged (${reason}) and could not be moved aside: ${(error as Error).message}`,
      { cause: error, damaged: true },
    );
  }
  return movedTo;
}
