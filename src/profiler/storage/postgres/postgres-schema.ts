/**
 * The layout of the PostgreSQL report store, created or moved forward when a store opens, in one
 * transaction under an advisory lock: instances that start together wait for each other, and the
 * store is created once, with one token key.
 */
import type pg from 'pg';
import { OVERVIEW_TABLE } from './postgres-overview.js';

/** The version this code writes; a store at a later version (a newer vigil) is used as it is. */
const SCHEMA_VERSION = 3;

/** Advisory locks of the store: (LOCK_CLASS, SCHEMA_LOCK) while moving the layout forward, (LOCK_CLASS, WRITE_LOCK) for writes. */
export const LOCK_CLASS = 0x76696769; // "vigi"
export const SCHEMA_LOCK = 1;
export const WRITE_LOCK = 2;

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS vigil_schema_version (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/**
 * Migration n moves a store from version n - 1 to n; each runs inside the migrating transaction.
 * Tables are `vigil_*` so the store may live in the application's own database. Each index serves
 * one query, since each costs every insert (docs/deployment.md, "The database"); the token's is in
 * the "C" collation, where a prefix search (`LIKE 'ab%'`) is a range, not a scan. `vigil_report_count`
 * is kept by each write under the write lock, so that no write has to count the table.
 */
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
  // The facts kept beside the summary (`report-facts.ts`): null in the reports stored before, which are
  // no browser asset. Adding a column with a constant default rewrites no row; their indexes are search indexes.
  `ALTER TABLE vigil_reports
    ADD COLUMN route text,
    ADD COLUMN exception text,
    ADD COLUMN fingerprint text,
    ADD COLUMN statements integer,
    ADD COLUMN calls integer,
    ADD COLUMN asset boolean NOT NULL DEFAULT false;`,
  // The overview's minutes (`postgres-overview.ts`): one row per minute and process.
  OVERVIEW_TABLE,
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
