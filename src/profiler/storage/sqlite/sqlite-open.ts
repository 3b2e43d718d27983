/** Opens the report store's SQLite file with the settings every connection to it uses. */
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { openSqlite, type SqliteDatabase } from './sqlite-driver.js';
import { boundDiskUse } from './sqlite-disk.js';
import { prepareSchema } from './sqlite-schema.js';

export function openDatabase(file: string): SqliteDatabase {
  createPrivately(file);
  const db = openSqlite(file);
  try {
    // Lets a new file give freed pages back (sqlite-disk.ts); it must precede WAL, which writes the header.
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Reads and the write thread share the file; a writer's lock is waited for, not failed on.
    db.pragma('busy_timeout = 5000');
    boundDiskUse(db);
    prepareSchema(db);
  } catch (error) {
    // A full disk fails here, and the store tries again later: no connection is left open meanwhile.
    db.close();
    throw error;
  }
  return db;
}

/** A read-only connection to an open store's file, for the read thread: the write side made its schema. */
export function openReadConnection(file: string): SqliteDatabase {
  const db = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    // A writer checkpointing, or another process recovering the WAL, is waited for.
    db.pragma('busy_timeout = 5000');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Reports hold what clients sent: the store is its owner's alone, whatever the umask. Its
 * directory is created 0700 and the file 0600; SQLite gives its -wal and -shm files the
 * database file's mode. A file kept from an older start is made 0600 too.
 */
function createPrivately(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    for (const own of [file, `${file}-wal`, `${file}-shm`]) chmodQuietly(own);
    return;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

function chmodQuietly(path: string): void {
  try {
    chmodSync(path, 0o600);
  } catch {
    // Missing (no -wal yet), or not ours to change: SQLite reports what matters when it opens.
  }
}
