/**
 * How the report store keeps its disk use near what the retention needs: the WAL is bounded and emptied
 * after each retention run, and freed pages are given back when many. Each batch deletes the reports it
 * replaces (`sqlite-writes.ts`), so a checkpoint never grows the file for reports about to go: on a full
 * disk that checkpoint could not finish, and nothing more could be written.
 */
import type { SqliteDatabase } from './sqlite-driver.js';

/** WAL pages after which a commit copies the WAL into the database: 512 KiB of 4 KiB pages (SQLite's default is 1000). */
const WAL_CHECKPOINT_PAGES = 128;
/** Bytes a WAL file is cut back to when SQLite starts it over. */
const WAL_SIZE_LIMIT = 512 * 1024;
/**
 * Free pages are given back to the file system only when there are more than this many, and
 * more than a quarter of the file: the few that retention frees as reports come and go are
 * reused by the next reports instead of being moved and reallocated every second.
 */
const FREE_PAGES_KEPT = 256;

/** The bounds every connection to the store uses. */
export function boundDiskUse(db: SqliteDatabase): void {
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
}

/** Free pages given back per step after a large purge: the file is moved a few megabytes at a time. */
const VACUUM_STEP_PAGES = 2048;

/**
 * After a retention run, one step of giving free pages back: true while more are to be
 * given. Between steps the write thread applies other commands.
 */
export function freePagesStep(db: SqliteDatabase): boolean {
  const free = db.pragma('freelist_count', { simple: true }) as number;
  const pages = db.pragma('page_count', { simple: true }) as number;
  if (!(free > FREE_PAGES_KEPT && free > pages / 4)) return false;
  db.pragma(`incremental_vacuum(${VACUUM_STEP_PAGES})`);
  // An older file (no auto_vacuum) keeps its free pages: nothing was given back.
  return (db.pragma('freelist_count', { simple: true }) as number) < free;
}

/**
 * After a retention run or a clear: gives free pages back (files created with
 * `auto_vacuum = INCREMENTAL`; older files keep theirs for reuse), then copies the WAL into
 * the database and truncates it to nothing.
 */
export function settleDiskUse(db: SqliteDatabase): void {
  const free = db.pragma('freelist_count', { simple: true }) as number;
  const pages = db.pragma('page_count', { simple: true }) as number;
  if (free > FREE_PAGES_KEPT && free > pages / 4) db.pragma('incremental_vacuum');
  db.pragma('wal_checkpoint(TRUNCATE)');
}
