/**
 * The PostgreSQL store's search indexes, added to a store of any age when it opens: at once in a small
 * store, in the background (`CREATE INDEX CONCURRENTLY`) in a larger one, which keeps serving meanwhile.
 * When `pg_trgm` cannot be created, the store says so in one line and the part-of filters stay scans.
 */
import type pg from 'pg';
import { LOCK_CLASS, SCHEMA_LOCK } from './postgres-schema.js';

/** Advisory lock (LOCK_CLASS, INDEX_LOCK): one instance builds the indexes of a large store at a time. */
const INDEX_LOCK = 3;

/** Up to this many reports, the indexes are built at open, within the statement timeout. */
export const INDEX_AT_OPEN_LIMIT = 20_000;

interface SearchIndex {
  name: string;
  /** What follows `ON vigil_reports`. */
  on: string;
  trigram: boolean;
  unique?: boolean;
  /** An index of version 1 this one stands in for, dropped once this one is valid. */
  replaces?: string;
}

/**
 * A B-tree per exact filter, with the id, so the newest first is a walk of it; a trigram index per
 * part-of filter, which answers `LIKE '%part%'`. The token's carries the id, so the newest of a
 * short prefix's thousands of reports are found in the index alone; time has its own since version 1.
 */
const SEARCH_INDEXES: readonly SearchIndex[] = [
  {
    name: 'vigil_reports_by_token_with_id',
    on: '(token) INCLUDE (id)',
    trigram: false,
    unique: true,
    replaces: 'vigil_reports_by_token',
  },
  { name: 'vigil_reports_by_status', on: '(status, id)', trigram: false },
  { name: 'vigil_reports_by_method', on: '(method, id)', trigram: false },
  { name: 'vigil_reports_by_route', on: '(route, id)', trigram: false },
  // Only the reports with an exception; the last gives them newest first, for the exceptions page.
  { name: 'vigil_reports_by_exception', on: '(exception, id) WHERE exception IS NOT NULL', trigram: false },
  { name: 'vigil_reports_by_fingerprint', on: '(fingerprint, id) WHERE fingerprint IS NOT NULL', trigram: false },
  { name: 'vigil_reports_by_id_with_exception', on: '(id) WHERE fingerprint IS NOT NULL', trigram: false },
  { name: 'vigil_reports_by_url_part', on: 'USING gin (url gin_trgm_ops)', trigram: true },
  { name: 'vigil_reports_by_ip_part', on: 'USING gin (ip gin_trgm_ops)', trigram: true },
];

/** Where the store says what it does: the service logs it as a warning. */
export type Notify = (message: string) => void;

type Client = pg.ClientBase;

interface IndexState {
  /** There and valid. */
  built: boolean;
  /** There, not valid (a concurrent build cut short). */
  exists: boolean;
}

/** The indexes still to build, or whose replaced index is still to drop. */
export async function missingIndexes(client: Client): Promise<Array<SearchIndex & IndexState>> {
  const names = SEARCH_INDEXES.flatMap((index) => (index.replaces ? [index.name, index.replaces] : [index.name]));
  const { rows } = await client.query<{ name: string; valid: boolean | null }>(
    'SELECT n.name, i.indisvalid AS valid FROM unnest($1::text[]) AS n(name) LEFT JOIN pg_index i ON i.indexrelid = to_regclass(n.name)',
    [names],
  );
  const state = new Map(rows.map((row) => [row.name, row.valid]));
  return SEARCH_INDEXES.map((index) => ({
    ...index,
    built: state.get(index.name) === true,
    exists: state.get(index.name) === false,
  })).filter((index) => !index.built || (index.replaces !== undefined && state.get(index.replaces) != null));
}

async function isValid(client: Client, name: string): Promise<boolean> {
  const { rows } = await client.query<{ valid: boolean | null }>(
    'SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)',
    [name],
  );
  return rows[0]?.valid === true;
}

function createIndex(index: SearchIndex, concurrently: boolean): string {
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${concurrently ? 'CONCURRENTLY IF NOT EXISTS ' : ''}${index.name} ON vigil_reports ${index.on}`;
}

/** Creates `pg_trgm` unless it is there; resolves with why it cannot be, or undefined. Inside a transaction, under a savepoint. */
async function trigramProblem(client: Client, inTransaction: boolean): Promise<string | undefined> {
  const { rows } = await client.query<{ present: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_opclass WHERE opcname = 'gin_trgm_ops' AND pg_opclass_is_visible(oid)) AS present",
  );
  if (rows[0]!.present) return undefined;
  if (inTransaction) await client.query('SAVEPOINT trigram');
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    return undefined;
  } catch (error) {
    if (inTransaction) await client.query('ROLLBACK TO SAVEPOINT trigram');
    return (error as Error).message;
  }
}

function scanNotice(location: string, problem: string): string {
  return `The report store ${location} cannot create the pg_trgm extension (${problem}): searches by part of the URL or IP scan the reports`;
}

/** Builds the missing indexes of a small store, in one transaction under the schema lock. */
export async function createIndexesNow(client: Client, location: string, notify: Notify): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, SCHEMA_LOCK]);
    const missing = await missingIndexes(client);
    const problem = missing.some((index) => index.trigram) ? await trigramProblem(client, true) : undefined;
    if (problem !== undefined) notify(scanNotice(location, problem));
    for (const index of missing) {
      if (index.trigram && problem !== undefined) continue;
      if (!index.built) {
        if (index.exists) await client.query(`DROP INDEX ${index.name}`);
        await client.query(createIndex(index, false));
      }
      if (index.replaces) await client.query(`DROP INDEX IF EXISTS ${index.replaces}`);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Builds the missing indexes while the store serves, on a connection of its own without a
 * statement timeout; returns at once if another instance is building them. Until an index is valid
 * the planner does not use it and that filter scans; a build cut short leaves an invalid index, which
 * the next start drops and builds again.
 */
export async function buildIndexesConcurrently(client: Client, location: string, notify: Notify): Promise<void> {
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
    LOCK_CLASS,
    INDEX_LOCK,
  ]);
  if (!rows[0]!.locked) return;
  try {
    const missing = await missingIndexes(client);
    if (missing.length === 0) return;
    const problem = missing.some((index) => index.trigram) ? await trigramProblem(client, false) : undefined;
    if (problem !== undefined) notify(scanNotice(location, problem));
    const possible = missing.filter((index) => !index.trigram || problem === undefined);
    const building = possible.filter((index) => !index.built);
    const started = Date.now();
    if (building.length > 0)
      notify(
        `The report store ${location} is building its search indexes (${building.map((index) => index.name).join(', ')}); searches by those fields scan until each is done`,
      );
    for (const index of possible) {
      if (!index.built) {
        if (index.exists) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`);
        try {
          await client.query(createIndex(index, true));
        } catch (error) {
          // A build cut short leaves an invalid index that every insert still updates.
          await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`).catch(() => undefined);
          throw error;
        }
      }
      // The index it replaces goes only once this one is valid (writes need a unique token index).
      if (index.replaces && (await isValid(client, index.name)))
        await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index.replaces}`);
    }
    if (building.length > 0)
      notify(
        `The report store ${location} has built its search indexes in ${Math.round((Date.now() - started) / 1000)} s`,
      );
  } finally {
    await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, INDEX_LOCK]).catch(() => undefined);
  }
}
