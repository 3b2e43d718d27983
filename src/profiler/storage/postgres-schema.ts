/**
 * The layout of the PostgreSQL report store, created and moved forward when a store opens.
 *
 * Its tables are named `vigil_*`, so that the store may live in the application's own
 * database: `vigil_reports` (one row per report, `id` in arrival order), `vigil_traces`
 * (each stack trace once, under a hash of its JSON), `vigil_token_counter` (the one row
 * every instance leases tokens from: the next counter value and the 32-byte key of the
 * store's token permutation, drawn when the store is created), `vigil_retention_lease` (who
 * runs the retention, until when), `vigil_report_count` (how many reports are stored, kept
 * by each write under the store's write lock, so that no write counts the table) and
 * `vigil_schema_version` (one row per version applied).
 *
 * The indexes serve the store's queries and no more, since each one costs every insert:
 * - the token, unique, in the "C" collation: reading a report, refusing a token already
 *   stored (ON CONFLICT), and the token-prefix search (`LIKE 'ab%'` is a range of a C
 *   btree; in another collation it is a scan);
 * - the primary key, `id` in arrival order: the newest first (read backwards, no sort,
 *   stopping at the limit, which also serves the part-of-URL and part-of-IP searches: they
 *   filter that walk) and retention by count (the oldest first), whatever the clock said;
 * - (time, id): the time range and retention by age (`time < ...`);
 * - the trace hash, where there is one: finding the traces no report names any more.
 * The method and status are not indexed: they are filters of few values, which the walk
 * newest first answers as fast as an index would for the common searches.
 *
 * A store is moved forward in one transaction under an advisory lock: instances that
 * start together at a new database wait for each other, and it is created once, with one key.
 */
import type pg from 'pg';

/** The version this code writes; a store at a later version (a newer vigil) is used as it is. */
export const SCHEMA_VERSION = 1;

/** Advisory locks of the store: (LOCK_CLASS, SCHEMA_LOCK) while moving the layout forward, (LOCK_CLASS, WRITE_LOCK) for writes. */
export const LOCK_CLASS = 0x76696769; // "vigi"
export const SCHEMA_LOCK = 1;
export const WRITE_LOCK = 2;

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS vigil_schema_version (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** Migration n moves a store from version n - 1 to n; each runs inside the migrating transaction. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE vigil_reports (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token text COLLATE "C" NOT NULL,
    time bigint NOT NULL,
    method text NOT NULL,
    url text NOT NULL,
    status integer NOT NULL,
    ip text NOT NULL,
    duration double precision NOT NULL,
    data text NOT NULL,
    trace text
  );
  CREATE UNIQUE INDEX vigil_reports_by_token ON vigil_reports (token);
  CREATE INDEX vigil_reports_by_time ON vigil_reports (time, id);
  CREATE INDEX vigil_reports_by_trace ON vigil_reports (trace) WHERE trace IS NOT NULL;
  CREATE TABLE vigil_traces (
    hash text PRIMARY KEY,
    json text NOT NULL
  );
  CREATE TABLE vigil_token_counter (
    id integer PRIMARY KEY CHECK (id = 1),
    next bigint NOT NULL,
    key bytea NOT NULL
  );
  CREATE TABLE vigil_retention_lease (
    id integer PRIMARY KEY CHECK (id = 1),
    holder text NOT NULL,
    expires bigint NOT NULL
  );
  CREATE TABLE vigil_report_count (
    id integer PRIMARY KEY CHECK (id = 1),
    reports bigint NOT NULL
  );
  INSERT INTO vigil_report_count (id, reports) VALUES (1, 0);`,
];

/** The counter's row, with a new key, unless the store has one. */
export const CREATE_COUNTER =
  'INSERT INTO vigil_token_counter (id, next, key) VALUES (1, 0, $1) ON CONFLICT (id) DO NOTHING';

/** True when the store's tables were created (the command line reads without creating them). */
export async function schemaExists(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ present: boolean }>(
    "SELECT to_regclass('vigil_schema_version') IS NOT NULL AS present",
  );
  return rows[0]!.present;
}

async function schemaVersion(client: pg.ClientBase): Promise<number> {
  if (!(await schemaExists(client))) return 0;
  const { rows } = await client.query<{ version: number }>(
    'SELECT coalesce(max(version), 0) AS version FROM vigil_schema_version',
  );
  return rows[0]!.version;
}

/**
 * Creates the tables, or moves an older layout forward, unless the store is current. The
 * version is read again under the lock: another instance may have done it meanwhile.
 */
export async function prepareSchema(client: pg.ClientBase, newKey: () => Buffer): Promise<void> {
  if ((await schemaVersion(client)) >= SCHEMA_VERSION) return;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, SCHEMA_LOCK]);
    await client.query(VERSION_TABLE);
    for (let version = await schemaVersion(client); version < SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version]!);
      await client.query('INSERT INTO vigil_schema_version (version) VALUES ($1)', [version + 1]);
    }
    await client.query(CREATE_COUNTER, [newKey()]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
