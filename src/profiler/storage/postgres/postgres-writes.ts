/**
 * Every write to the PostgreSQL report store: batches of reports (one multi-row INSERT, each trace
 * once), token leases, retention purges under the retention lease, and clears, each in a transaction
 * that the store opens and commits.
 */
import type pg from 'pg';
import { TokenPermutation } from '../../tokens/token-permutation.js';
import { isReportDataError } from './postgres-errors.js';
import { CREATE_COUNTER, LOCK_CLASS, WRITE_LOCK } from './postgres-schema.js';
import type { EncodedReport } from '../../model/report-encoding.js';

type Client = pg.ClientBase;

interface InsertOutcome {
  rejected: string[];
  failed: Array<{ token: string; error: Error }>;
  /** How many reports were deleted to stay within `keep`. */
  deleted: number;
}

/** Who asks to run the retention, when, and for how long it holds it. */
interface LeaseRequest {
  holder: string;
  now: number;
  ms: number;
}

const INSERT_REPORTS = `INSERT INTO vigil_reports (token, time, method, url, status, ip, duration, data, trace, route, exception, fingerprint, statements, calls, asset)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::double precision[], $8::text[], $9::text[],
    $10::text[], $11::text[], $12::text[], $13::integer[], $14::integer[], $15::boolean[])
  ON CONFLICT (token) DO NOTHING RETURNING token`;
const INSERT_TRACES =
  'INSERT INTO vigil_traces (hash, json) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (hash) DO NOTHING';
/** Of the reports given (by position, from 1), those stored already: the same batch, written before. */
const SAME_REPORTS = `SELECT b.n FROM vigil_reports r
  JOIN unnest($1::text[], $2::bigint[], $3::text[], $4::integer[], $5::double precision[]) WITH ORDINALITY AS b(token, time, url, status, duration, n)
  ON r.token = b.token AND r.time = b.time AND r.url = b.url AND r.status = b.status AND r.duration = b.duration`;
// The oldest in arrival order (id, taken under the write lock), not by a clock that may have been stepped back.
const DELETE_OLDEST = 'DELETE FROM vigil_reports WHERE id IN (SELECT id FROM vigil_reports ORDER BY id LIMIT $1)';
const DELETE_OLDEST_UP_TO =
  'DELETE FROM vigil_reports WHERE id IN (SELECT id FROM vigil_reports WHERE id <= $2 ORDER BY id LIMIT $1)';
const NEWEST_ID = 'SELECT coalesce(max(id), 0) AS id FROM vigil_reports';
const DELETE_ORPHAN_TRACES =
  'DELETE FROM vigil_traces t WHERE NOT EXISTS (SELECT 1 FROM vigil_reports r WHERE r.trace = t.hash)';
const COUNT = 'SELECT reports FROM vigil_report_count WHERE id = 1';
const ADD_TO_COUNT = 'UPDATE vigil_report_count SET reports = reports + $1 WHERE id = 1';
const TAKE_LEASE = `INSERT INTO vigil_retention_lease AS lease (id, holder, expires) VALUES (1, $1, $2)
  ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
  WHERE lease.holder = excluded.holder OR lease.expires <= $3`;

/**
 * Writes that change the reports take this transaction-level lock first: across every instance one runs
 * at a time, as in SQLite, so the count a write reads is the one it acts on, and a trace is never deleted
 * as unused while a report that names it is being written.
 */
async function lockWrites(client: Client): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, WRITE_LOCK]);
}

async function storedCount(client: Client): Promise<number> {
  const { rows } = await client.query<{ reports: number }>(COUNT);
  return rows[0]?.reports ?? 0;
}

async function deleteOldest(client: Client, count: number): Promise<number> {
  return (await client.query(DELETE_OLDEST, [count])).rowCount ?? 0;
}

/** The batch as the arrays INSERT_REPORTS unnests, one per column. */
function columns(reports: readonly EncodedReport[]): unknown[][] {
  const cols: unknown[][] = Array.from({ length: 15 }, () => []);
  for (const report of reports) {
    const { token, time, method, url, status, ip, duration, data, trace } = report;
    const { route, exception, fingerprint, statements, calls, asset } = report;
    const row: unknown[] = [token, time, method, url, status, ip, duration, data, trace?.hash ?? null];
    row.push(route, exception, fingerprint, statements, calls, asset);
    for (let i = 0; i < row.length; i++) cols[i]!.push(row[i]);
  }
  return cols;
}

/**
 * Inserts the reports: one statement for the batch. When the server refuses the batch for
 * one report's data (a NUL character in a string), each report is inserted on its own
 * (under a savepoint), and those refused come back in `failed`: one bad report costs itself only.
 */
async function insertRows(
  client: Client,
  reports: readonly EncodedReport[],
  outcome: InsertOutcome,
): Promise<string[]> {
  await client.query('SAVEPOINT batch');
  try {
    return (await client.query<{ token: string }>(INSERT_REPORTS, columns(reports))).rows.map((row) => row.token);
  } catch (error) {
    if (!isReportDataError(error)) throw error;
    await client.query('ROLLBACK TO SAVEPOINT batch');
  }
  const inserted: string[] = [];
  for (const report of reports) {
    await client.query('SAVEPOINT one');
    try {
      inserted.push(
        ...(await client.query<{ token: string }>(INSERT_REPORTS, columns([report]))).rows.map((row) => row.token),
      );
    } catch (error) {
      if (!isReportDataError(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT one');
      outcome.failed.push({ token: report.token, error: error as Error });
    }
  }
  return inserted;
}

/**
 * Stores a batch; with `keep`, at most that many reports remain, the oldest deleted first.
 * A token already stored is refused, unless the stored report is this very one: a batch
 * written again after its commit's answer was lost (the connection cut just then) is
 * stored, not refused.
 */
export async function insertReports(
  client: Client,
  reports: readonly EncodedReport[],
  keep: number | undefined,
): Promise<InsertOutcome> {
  const outcome: InsertOutcome = { rejected: [], failed: [], deleted: 0 };
  await lockWrites(client);
  let stored = keep === undefined ? 0 : await storedCount(client);
  const makeRoom = async (incoming: number) => {
    const surplus = keep === undefined ? 0 : stored + incoming - keep;
    if (surplus <= 0) return;
    const deleted = await deleteOldest(client, surplus);
    stored -= deleted;
    outcome.deleted += deleted;
  };
  await makeRoom(reports.length);
  const traces = new Map<string, string>();
  for (const { trace } of reports) if (trace) traces.set(trace.hash, trace.json);
  if (traces.size > 0) await client.query(INSERT_TRACES, [[...traces.keys()], [...traces.values()]]);
  const inserted = await insertRows(client, reports, outcome);
  stored += inserted.length;
  // A batch larger than `keep` by itself.
  await makeRoom(0);
  await client.query(ADD_TO_COUNT, [inserted.length - outcome.deleted]);
  if (outcome.deleted > 0) await client.query(DELETE_ORPHAN_TRACES);

  const written = new Set(inserted);
  const failed = new Set(outcome.failed.map((failure) => failure.token));
  const clashes = reports.filter((report) => !written.has(report.token) && !failed.has(report.token));
  if (clashes.length > 0) {
    const same = await sameReports(client, clashes);
    outcome.rejected = clashes.filter((_, i) => !same.has(i + 1)).map((report) => report.token);
  }
  return outcome;
}

/** The positions (from 1) of the `reports` that are stored already as they are: token, time, URL, status and duration alike. */
async function sameReports(client: Client, reports: readonly EncodedReport[]): Promise<Set<number>> {
  const values = [
    reports.map((r) => r.token),
    reports.map((r) => r.time),
    reports.map((r) => r.url),
    reports.map((r) => r.status),
    reports.map((r) => r.duration),
  ];
  return new Set((await client.query<{ n: number }>(SAME_REPORTS, values)).rows.map((row) => row.n));
}

/**
 * Advances the counter by `count`; resolves with its value before, and the store's key. No write lock:
 * one UPDATE advances the row, and the row's own lock keeps two leases apart.
 */
async function leaseCounter(
  client: Client,
  count: number,
  newKey: () => Buffer,
): Promise<{ first: number; key: Buffer }> {
  for (let attempt = 0; ; attempt++) {
    const { rows } = await client.query<{ first: number; key: Buffer }>(
      'UPDATE vigil_token_counter SET next = next + $1 WHERE id = 1 RETURNING next - $1 AS first, key',
      [count],
    );
    if (rows[0] || attempt > 0) return rows[0]!;
    // The row was deleted: a new key; stored tokens are still left out of the lease.
    await client.query(CREATE_COUNTER, [newKey()]);
  }
}

/** Of `tokens`, those a stored report holds. */
async function heldTokens(client: Client, tokens: readonly string[]): Promise<Set<string>> {
  const { rows } = await client.query<{ token: string }>(
    'SELECT token FROM vigil_reports WHERE token = ANY($1::text[])',
    [tokens],
  );
  return new Set(rows.map((row) => row.token));
}

/** `count` tokens of the counter, less those a stored report holds (2^24 values on, the counter comes back to a token). */
export class TokenLeases {
  private permutation: { key: Buffer; of: TokenPermutation } | undefined;

  constructor(private readonly newKey: () => Buffer) {}

  async lease(client: Client, count: number): Promise<string[]> {
    const { first, key } = await leaseCounter(client, count, this.newKey);
    if (!this.permutation?.key.equals(key)) this.permutation = { key, of: new TokenPermutation(key) };
    const tokens = Array.from({ length: count }, (_, i) => this.permutation!.of.token(first + i));
    const taken = await heldTokens(client, tokens);
    return taken.size === 0 ? tokens : tokens.filter((token) => !taken.has(token));
  }
}

/** Reports a purge deletes per transaction: writers take the write lock between two. */
export const PURGE_CHUNK = 5000;

/** Of the oldest `limit` reports, those older than `before`: one chunk of the retention by age. */
const DELETE_EXPIRED =
  'DELETE FROM vigil_reports WHERE id IN (SELECT id FROM vigil_reports WHERE time < $1 ORDER BY time, id LIMIT $2)';

async function inTransaction<T>(client: Client, use: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await use();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Deletes reports older than `before` and beyond the newest `keep`; returns how many, or
 * undefined when `lease` is given and another holder has the retention. It deletes
 * `chunk` reports per transaction, each under the write lock, so that a purge of a million
 * reports holds writers up for one chunk at a time, never for the whole purge.
 */
export async function purgeReports(
  client: Client,
  before: number,
  keep: number,
  lease: LeaseRequest | undefined,
  chunk = PURGE_CHUNK,
): Promise<number | undefined> {
  if (
    lease &&
    (await inTransaction(client, () => client.query(TAKE_LEASE, [lease.holder, lease.now + lease.ms, lease.now])))
      .rowCount === 0
  )
    return undefined;
  let deleted = 0;
  // The newest report when it began: those written since are the next run's, so that it always ends.
  const upToId = (await client.query<{ id: string }>(NEWEST_ID)).rows[0]?.id ?? '0';
  for (;;) {
    const step = await inTransaction(client, async () => {
      await lockWrites(client);
      const expired = (await client.query(DELETE_EXPIRED, [before, chunk])).rowCount ?? 0;
      const surplus = (await storedCount(client)) - expired - keep;
      const beyond =
        expired < chunk && surplus > 0
          ? ((await client.query(DELETE_OLDEST_UP_TO, [Math.min(surplus, chunk - expired), upToId])).rowCount ?? 0)
          : 0;
      if (expired + beyond > 0) await client.query(ADD_TO_COUNT, [-(expired + beyond)]);
      return expired + beyond;
    });
    deleted += step;
    if (step < chunk) break;
  }
  if (deleted > 0) {
    await inTransaction(client, async () => {
      await lockWrites(client);
      await client.query(DELETE_ORPHAN_TRACES);
    });
  }
  return deleted;
}

export async function releaseRetention(client: Client, holder: string): Promise<void> {
  await client.query('UPDATE vigil_retention_lease SET expires = 0 WHERE id = 1 AND holder = $1', [holder]);
}

/** Deletes every report and trace; returns how many reports. */
export async function clearReports(client: Client): Promise<number> {
  await lockWrites(client);
  const deleted = (await client.query('DELETE FROM vigil_reports')).rowCount ?? 0;
  await client.query('DELETE FROM vigil_traces');
  await client.query('UPDATE vigil_report_count SET reports = 0 WHERE id = 1');
  return deleted;
}
