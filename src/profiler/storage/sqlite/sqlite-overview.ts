/**
 * The overview's minutes in the SQLite file: one row per minute and process (`holder`), its
 * counts as JSON. Rows of one minute are added up when read. The table stands beside the
 * reports' layout, created when absent, so a file of any version takes it.
 */
import type { SqliteDatabase } from './sqlite-driver.js';
import { addMinute, emptyMinute, type MinuteCounts } from '../../overview/minute-counts.js';
import type { CountedMinute } from '../../overview/overview-recorder.js';

export const OVERVIEW_TABLE = `CREATE TABLE IF NOT EXISTS overview_minutes (
  minute INTEGER NOT NULL,
  holder TEXT NOT NULL,
  counts TEXT NOT NULL,
  PRIMARY KEY (minute, holder)
) WITHOUT ROWID`;

/**
 * Adds `minutes` counted by `holder` (to a row it wrote for the same minute before, if any),
 * and deletes the minutes before `before`, in one transaction.
 */
export function writeOverview(
  db: SqliteDatabase,
  holder: string,
  minutes: readonly CountedMinute[],
  before: number,
): void {
  const held = db.prepare('SELECT counts FROM overview_minutes WHERE minute = ? AND holder = ?').pluck();
  const put = db.prepare(
    'INSERT INTO overview_minutes (minute, holder, counts) VALUES (?, ?, ?) ON CONFLICT (minute, holder) DO UPDATE SET counts = excluded.counts',
  );
  db.transaction(() => {
    for (const { minute, counts } of minutes) {
      const earlier = held.get(minute, holder) as string | undefined;
      let merged = counts;
      if (earlier !== undefined) {
        merged = emptyMinute();
        addMinute(merged, JSON.parse(earlier) as MinuteCounts);
        addMinute(merged, counts);
      }
      put.run(minute, holder, JSON.stringify(merged));
    }
    db.prepare('DELETE FROM overview_minutes WHERE minute < ?').run(before);
  })();
}

/** Every holder's counts from minute `from` on, added up; a file without the table has none. */
export function readOverview(db: SqliteDatabase, from: number): MinuteCounts {
  const total = emptyMinute();
  let rows: string[];
  try {
    rows = db.prepare('SELECT counts FROM overview_minutes WHERE minute >= ?').pluck().all(from) as string[];
  } catch (error) {
    if (/no such table/.test((error as Error).message)) return total;
    throw error;
  }
  for (const row of rows) {
    try {
      addMinute(total, JSON.parse(row) as MinuteCounts);
    } catch {
      // A row this code cannot read (damaged, or a later layout's) costs its own minute only.
    }
  }
  return total;
}
