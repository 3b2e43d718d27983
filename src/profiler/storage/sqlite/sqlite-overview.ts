/**
 * The overview's counts in the SQLite file: a row per minute and process (`holder`), its
 * counts as JSON; minutes older than an hour are rolled up into a row per hour, so a week
 * is some 170 rows a process, not 10,000. Rows are added up when read. The table stands
 * beside the reports' layout, created when absent, so a file of any version takes it.
 */
import type { SqliteDatabase } from './sqlite-driver.js';
import { addMinute, emptyMinute, type MinuteCounts } from '../../overview/minute-counts.js';
import type { CountedMinute } from '../../overview/overview-recorder.js';
import { HOUR_SPAN, hourOf, type OverviewUpkeep } from '../report-store.js';

/** `minute`: where the row starts, in minutes since the epoch; `span`: 1, or 60 for an hour's roll-up. */
export const OVERVIEW_TABLE = `CREATE TABLE IF NOT EXISTS overview_minutes (
  minute INTEGER NOT NULL,
  holder TEXT NOT NULL,
  span INTEGER NOT NULL,
  counts TEXT NOT NULL,
  PRIMARY KEY (minute, holder, span)
) WITHOUT ROWID`;

function merged(earlier: string | undefined, counts: MinuteCounts): MinuteCounts {
  if (earlier === undefined) return counts;
  const total = emptyMinute();
  addMinute(total, JSON.parse(earlier) as MinuteCounts);
  addMinute(total, counts);
  return total;
}

/**
 * Adds `minutes` counted by `holder` to the rows it wrote before, rolls its minutes before
 * `upkeep.hourlyBefore` up into hours, and deletes every holder's rows that end before
 * `upkeep.deleteBefore`, in one transaction.
 */
export function writeOverview(
  db: SqliteDatabase,
  holder: string,
  minutes: readonly CountedMinute[],
  upkeep: OverviewUpkeep,
): void {
  const held = db.prepare('SELECT counts FROM overview_minutes WHERE minute = ? AND holder = ? AND span = ?').pluck();
  const put = db.prepare(
    'INSERT INTO overview_minutes (minute, holder, span, counts) VALUES (?, ?, ?, ?) ON CONFLICT (minute, holder, span) DO UPDATE SET counts = excluded.counts',
  );
  const add = (minute: number, span: number, counts: MinuteCounts) =>
    put.run(minute, holder, span, JSON.stringify(merged(held.get(minute, holder, span) as string | undefined, counts)));
  db.transaction(() => {
    for (const { minute, counts } of minutes) add(minute, 1, counts);
    const old = db
      .prepare('SELECT minute, counts FROM overview_minutes WHERE holder = ? AND span = 1 AND minute < ?')
      .all(holder, upkeep.hourlyBefore) as Array<{ minute: number; counts: string }>;
    const hours = new Map<number, MinuteCounts>();
    for (const row of old) {
      const hour = hourOf(row.minute);
      if (!hours.has(hour)) hours.set(hour, emptyMinute());
      addMinute(hours.get(hour)!, JSON.parse(row.counts) as MinuteCounts);
    }
    for (const [hour, counts] of hours) add(hour, HOUR_SPAN, counts);
    db.prepare('DELETE FROM overview_minutes WHERE holder = ? AND span = 1 AND minute < ?').run(
      holder,
      upkeep.hourlyBefore,
    );
    db.prepare('DELETE FROM overview_minutes WHERE minute + span <= ?').run(upkeep.deleteBefore);
  })();
}

/** Every holder's counts of the rows that reach minute `from` or later, added up; a file without the table has none. */
export function readOverview(db: SqliteDatabase, from: number): MinuteCounts {
  const total = emptyMinute();
  let rows: string[];
  try {
    rows = db.prepare('SELECT counts FROM overview_minutes WHERE minute + span > ?').pluck().all(from) as string[];
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
