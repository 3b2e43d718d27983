/**
 * The overview's minutes in PostgreSQL: one row per minute and process (`holder`), its counts
 * as JSON, added up when read. The table is created by the layout's third migration.
 */
import type pg from 'pg';
import { addMinute, emptyMinute, type MinuteCounts } from '../../overview/minute-counts.js';
import type { CountedMinute } from '../../overview/overview-recorder.js';

export const OVERVIEW_TABLE = `CREATE TABLE vigil_overview_minutes (
  minute bigint NOT NULL,
  holder text NOT NULL,
  counts text NOT NULL,
  PRIMARY KEY (minute, holder)
)`;

/** Rows added up between two turns of the event loop: a week of minutes is not parsed in one go. */
const ROWS_PER_TURN = 50;

/**
 * Adds `minutes` counted by `holder` to the rows it wrote before for the same minutes, and
 * deletes the minutes before `before`; in the caller's transaction.
 */
export async function writeOverview(
  client: pg.PoolClient,
  holder: string,
  minutes: readonly CountedMinute[],
  before: number,
): Promise<void> {
  for (const { minute, counts } of minutes) {
    const { rows } = await client.query<{ counts: string }>(
      'SELECT counts FROM vigil_overview_minutes WHERE minute = $1 AND holder = $2 FOR UPDATE',
      [minute, holder],
    );
    let merged = counts;
    if (rows[0] !== undefined) {
      merged = emptyMinute();
      addMinute(merged, JSON.parse(rows[0].counts) as MinuteCounts);
      addMinute(merged, counts);
    }
    await client.query(
      'INSERT INTO vigil_overview_minutes (minute, holder, counts) VALUES ($1, $2, $3) ON CONFLICT (minute, holder) DO UPDATE SET counts = excluded.counts',
      [minute, holder, JSON.stringify(merged)],
    );
  }
  await client.query('DELETE FROM vigil_overview_minutes WHERE minute < $1', [before]);
}

/** Every holder's counts from minute `from` on, added up. */
export async function readOverview(client: pg.PoolClient, from: number): Promise<MinuteCounts> {
  const { rows } = await client.query<{ counts: string }>(
    'SELECT counts FROM vigil_overview_minutes WHERE minute >= $1',
    [from],
  );
  const total = emptyMinute();
  for (const [i, row] of rows.entries()) {
    try {
      addMinute(total, JSON.parse(row.counts) as MinuteCounts);
    } catch {
      // A row this code cannot read (damaged, or a later layout's) costs its own minute only.
    }
    if ((i + 1) % ROWS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return total;
}
