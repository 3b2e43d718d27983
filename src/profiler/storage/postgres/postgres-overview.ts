/**
 * The overview's counts in PostgreSQL: a row per minute and process (`holder`), its counts as
 * JSON; minutes older than an hour are rolled up into a row per hour. Rows are added up when
 * read. The table is created by the layout's third migration.
 */
import type pg from 'pg';
import { addMinute, emptyMinute, type MinuteCounts } from '../../overview/minute-counts.js';
import type { CountedMinute } from '../../overview/overview-recorder.js';
import { HOUR_SPAN, hourOf, type OverviewUpkeep } from '../report-store.js';

/** `minute`: where the row starts, in minutes since the epoch; `span`: 1, or 60 for an hour's roll-up. */
export const OVERVIEW_TABLE = `CREATE TABLE vigil_overview_minutes (
  minute bigint NOT NULL,
  holder text NOT NULL,
  span integer NOT NULL,
  counts text NOT NULL,
  PRIMARY KEY (minute, holder, span)
)`;

/** Rows added up between two turns of the event loop: a week of rows is not parsed in one go. */
const ROWS_PER_TURN = 50;

async function add(client: pg.PoolClient, holder: string, minute: number, span: number, counts: MinuteCounts) {
  const { rows } = await client.query<{ counts: string }>(
    'SELECT counts FROM vigil_overview_minutes WHERE minute = $1 AND holder = $2 AND span = $3 FOR UPDATE',
    [minute, holder, span],
  );
  let total = counts;
  if (rows[0] !== undefined) {
    total = emptyMinute();
    addMinute(total, JSON.parse(rows[0].counts) as MinuteCounts);
    addMinute(total, counts);
  }
  await client.query(
    'INSERT INTO vigil_overview_minutes (minute, holder, span, counts) VALUES ($1, $2, $3, $4) ON CONFLICT (minute, holder, span) DO UPDATE SET counts = excluded.counts',
    [minute, holder, span, JSON.stringify(total)],
  );
}

/**
 * Adds `minutes` counted by `holder` to the rows it wrote before, rolls its minutes before
 * `upkeep.hourlyBefore` up into hours, and deletes every holder's rows that end before
 * `upkeep.deleteBefore`; in the caller's transaction.
 */
export async function writeOverview(
  client: pg.PoolClient,
  holder: string,
  minutes: readonly CountedMinute[],
  upkeep: OverviewUpkeep,
): Promise<void> {
  for (const { minute, counts } of minutes) await add(client, holder, minute, 1, counts);
  const { rows: old } = await client.query<{ minute: string; counts: string }>(
    'DELETE FROM vigil_overview_minutes WHERE holder = $1 AND span = 1 AND minute < $2 RETURNING minute, counts',
    [holder, upkeep.hourlyBefore],
  );
  const hours = new Map<number, MinuteCounts>();
  for (const row of old) {
    const hour = hourOf(Number(row.minute));
    if (!hours.has(hour)) hours.set(hour, emptyMinute());
    addMinute(hours.get(hour)!, JSON.parse(row.counts) as MinuteCounts);
  }
  for (const [hour, counts] of hours) await add(client, holder, hour, HOUR_SPAN, counts);
  await client.query('DELETE FROM vigil_overview_minutes WHERE minute + span <= $1', [upkeep.deleteBefore]);
}

/** Every holder's counts of the rows that reach minute `from` or later, added up. */
export async function readOverview(client: pg.PoolClient, from: number): Promise<MinuteCounts> {
  const { rows } = await client.query<{ counts: string }>(
    'SELECT counts FROM vigil_overview_minutes WHERE minute + span > $1',
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
