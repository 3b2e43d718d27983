/**
 * The shared report store: a PostgreSQL database that every instance, on any machine, writes and
 * reads (`PROFILER_DSN=postgres://...`), so a token minted by one opens on all. Every wait is bounded:
 * a server that cannot be reached or serve in time makes the call reject with a
 * {@link ReportStoreUnavailableError} (the writer keeps its reports queued, the pages answer 503).
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { PostgresDsn } from '../../../config/index.js';
import { TOKEN_KEY_BYTES } from '../../tokens/token-permutation.js';
import type {
  ExceptionGroupQuery,
  ExceptionGroupSummary,
  ListedReport,
  Report,
  ReportSearch,
  ReportSummary,
  SearchResult,
} from '../../model/report.js';
import { loadPg } from './postgres-driver.js';
import { readOverview, writeOverview } from './postgres-overview.js';
import type { MinuteCounts } from '../../overview/minute-counts.js';
import type { CountedMinute } from '../../overview/overview-recorder.js';
import { describePgError, isUnavailable } from './postgres-errors.js';
import { prepareSchema, schemaExists } from './postgres-schema.js';
import {
  buildIndexesConcurrently,
  createIndexesNow,
  INDEX_AT_OPEN_LIMIT,
  missingIndexes,
  type Notify,
} from './postgres-search-indexes.js';
import { IdWindows, NewestFirstReading } from '../search-windows.js';
import {
  clearReports,
  insertReports,
  PURGE_CHUNK,
  purgeReports,
  releaseRetention,
  TokenLeases,
} from './postgres-writes.js';
import { decodeReport, type EncodedReport } from '../../model/report-encoding.js';
import {
  ReportStoreError,
  ReportStoreUnavailableError,
  type OverviewUpkeep,
  type PurgeOptions,
  type ReportStore,
  type Retention,
  type WriteOutcome,
} from '../report-store.js';

export interface PostgresStoreOptions {
  /** How long opening a connection, or waiting for a pooled one, may take (3 s). */
  connectTimeoutMs?: number;
  /** How long one statement may run on the server (5 s); the client gives up a second later. */
  statementTimeoutMs?: number;
  /** Reports a purge deletes per transaction (5000). */
  purgeChunk?: number;
  /** Where the store says what it does at open: search indexes built in the background, or not possible. */
  notify?: Notify;
}

const CONNECT_TIMEOUT_MS = 3000;
const STATEMENT_TIMEOUT_MS = 5000;
/** The server ends a session whose transaction stays idle this long: its locks are not held for an instance that is gone. */
const IDLE_IN_TRANSACTION_MS = 10_000;
/** Pooled connections unused this long are closed: an idle instance holds none of the server's. */
const IDLE_CONNECTION_MS = 30_000;

const SUMMARY_COLUMNS = 'r.token, r.time, r.method, r.url, r.status, r.ip, r.duration';
/** The summary and the facts kept beside it, as a search lists a report. */
const LISTED_COLUMNS = `${SUMMARY_COLUMNS}, r.route, r.exception, r.fingerprint, r.statements, r.calls`;
const INT8_OID = 20;
/** bigint columns (times, counts, counter values) as numbers: they stay far below 2^53. */
function numericBigints(driver: typeof pg): pg.CustomTypesConfig {
  return {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? (value: string) => Number(value) : driver.types.getTypeParser(oid, format),
  } as pg.CustomTypesConfig;
}

/** `value` as a LIKE pattern that matches it literally: `%`, `_` and the escape itself escaped. */
function literal(value: string): string {
  return value.replace(/[\\%_]/g, '\\$&');
}

/** The exception groups among the newest reports with one (`vigil_reports_by_id_with_exception`): the window's size, then the number of groups. */
const EXCEPTION_GROUPS = `SELECT g.fingerprint, g.exception, g.count, g.first_seen AS "firstSeen", g.last_seen AS "lastSeen",
  g.statuses, g.routes, r.token AS newest
FROM (
  SELECT fingerprint, min(exception) AS exception, count(*)::integer AS count, min(time) AS first_seen, max(time) AS last_seen,
    array_agg(DISTINCT status ORDER BY status) AS statuses,
    array_agg(DISTINCT method || coalesce(' ' || route, '')) AS routes, max(id) AS newest_id
  FROM (SELECT id, fingerprint, exception, time, status, method, route FROM vigil_reports
    WHERE fingerprint IS NOT NULL AND NOT asset ORDER BY id DESC LIMIT $1) w
  GROUP BY fingerprint
) g JOIN vigil_reports r ON r.id = g.newest_id
ORDER BY g.newest_id DESC LIMIT $2`;

function newTokenKey(): Buffer {
  return randomBytes(TOKEN_KEY_BYTES);
}

type Row = ReportSummary & { data: string; trace_json: string | null };

export class PostgresReportStore implements ReportStore {
  private pool: pg.Pool | undefined;
  /** `open()` was called (the server may not have answered yet); `exists()` alone opens nothing. */
  private opened = false;
  /** Times close() ran: a connection under way when it ran makes no new pool. */
  private closes = 0;
  /** The layout prepared, once per store; a failed attempt is forgotten, and the next call tries again. */
  private schema: Promise<void> | undefined;
  private readonly leases = new TokenLeases(newTokenKey);
  private readonly connectTimeoutMs: number;
  private readonly statementTimeoutMs: number;
  private readonly notify: Notify;
  private readonly purgeChunk: number;
  /** The connection building the search indexes of a large store in the background, while it does. */
  private indexer: pg.Client | undefined;

  /** Touches nothing: the server is first reached by {@link open} or {@link exists}. */
  constructor(
    private readonly dsn: PostgresDsn,
    options: PostgresStoreOptions = {},
  ) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    this.statementTimeoutMs = options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
    this.notify = options.notify ?? (() => undefined);
    this.purgeChunk = options.purgeChunk ?? PURGE_CHUNK;
  }

  get location(): string {
    return this.dsn.location;
  }

  async exists(): Promise<boolean> {
    return this.withClient((client) => schemaExists(client));
  }

  async open(): Promise<void> {
    this.opened = true;
    if (this.schema) return;
    try {
      await this.prepared();
    } catch (error) {
      // Unreachable now: each call tries again, and the writer keeps its reports meanwhile.
      if (error instanceof ReportStoreUnavailableError) return;
      await this.close();
      throw new ReportStoreError(
        this.location,
        `the report store ${this.location} cannot be opened: ${describePgError((error as Error).cause ?? error)}`,
        { cause: error },
      );
    }
  }

  async write(reports: readonly EncodedReport[], keep?: number): Promise<WriteOutcome> {
    if (reports.length === 0)
      return keep === undefined ? { rejected: [], failed: [] } : { rejected: [], failed: [], deleted: 0 };
    const { rejected, failed, deleted } = await this.transaction((client) => insertReports(client, reports, keep));
    return keep === undefined ? { rejected, failed } : { rejected, failed, deleted };
  }

  async read(token: string): Promise<Report | undefined> {
    // No stored text holds a NUL, and the server refuses one in a parameter.
    if (token.includes('\0')) return undefined;
    const rows = await this.query<Row>(
      `SELECT ${SUMMARY_COLUMNS}, r.data, t.json AS trace_json FROM vigil_reports r LEFT JOIN vigil_traces t ON t.hash = r.trace WHERE r.token = $1`,
      [token],
    );
    const row = rows[0];
    return row && decodeReport(row, row.data, row.trace_json);
  }

  async search(filters: ReportSearch): Promise<SearchResult> {
    const where: string[] = [];
    const values: unknown[] = [];
    const param = (value: unknown) => `$${values.push(value)}`;
    const texts = [filters.ip, filters.method, filters.url, filters.token, filters.route, filters.exception];
    if (texts.some((text) => text?.includes('\0'))) return { reports: [] };
    // With a budget, the windows are read from the primary key: a part the trigram index cannot
    // take (strpos) keeps the planner off the index, whose lists it would read whole per window.
    const part = (field: 'ip' | 'url', value: string) =>
      filters.budgetMs === undefined
        ? `r.${field} LIKE ${param(`%${literal(value)}%`)}`
        : `strpos(r.${field}, ${param(value)}) > 0`;
    if (filters.ip) where.push(part('ip', filters.ip));
    if (filters.method) where.push(`r.method = ${param(filters.method.toUpperCase())}`);
    if (filters.statusCode !== undefined) where.push(`r.status = ${param(filters.statusCode)}`);
    if (filters.url) where.push(part('url', filters.url));
    if (filters.fingerprint) where.push(`r.fingerprint = ${param(filters.fingerprint)}`);
    if (filters.exception) where.push(`r.exception = ${param(filters.exception)}`);
    if (filters.route) where.push(`r.route = ${param(filters.route)}`);
    if (filters.minDuration !== undefined) where.push(`r.duration >= ${param(filters.minDuration)}`);
    if (filters.hideAssets) where.push('NOT r.asset');
    if (filters.token) where.push(`r.token LIKE ${param(`${literal(filters.token.toLowerCase())}%`)}`);
    if (filters.start !== undefined) where.push(`r.time >= ${param(filters.start)}`);
    if (filters.end !== undefined) where.push(`r.time <= ${param(filters.end)}`);
    if (filters.before !== undefined) where.push(`r.id < ${param(filters.before)}`);
    const limit = filters.limit ?? 100;
    // Newest in arrival order: the report written last comes first, even after the clock was stepped back.
    const newestFirst = (conditions: string[]) =>
      `SELECT ${LISTED_COLUMNS} FROM vigil_reports r ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY r.id DESC LIMIT $${values.length + 1}`;
    if (filters.token && !filters.url && !filters.ip) {
      // The ids first, from the token index alone (it carries them): a short prefix holds thousands.
      const ids = `SELECT r.id FROM vigil_reports r WHERE ${where.join(' AND ')} ORDER BY r.id DESC LIMIT $${values.length + 1}`;
      const sql = `SELECT ${LISTED_COLUMNS} FROM vigil_reports r WHERE r.id IN (${ids}) ORDER BY r.id DESC`;
      return { reports: await this.query<ListedReport>(sql, [...values, limit]) };
    }
    // A minimum duration has no index: with a budget it is read in windows too, or it would scan the table in one statement.
    const windowed = filters.url || filters.ip || (filters.minDuration !== undefined && filters.budgetMs !== undefined);
    if (!windowed) return { reports: await this.query<ListedReport>(newestFirst(where), [...values, limit]) };
    // A part, or a duration: read in windows of ids (search-windows.ts).
    const sql = newestFirst([...where, `r.id <= $${values.length + 2}`, `r.id > $${values.length + 3}`]).replace(
      'SELECT ',
      'SELECT r.id::float8 AS id, ',
    );
    const [newest] = await this.query<{ id: number | null }>('SELECT max(id)::float8 AS id FROM vigil_reports');
    const reading = new NewestFirstReading(limit, filters.budgetMs);
    const windows = new IdWindows(
      Math.min(newest?.id ?? 0, (filters.before ?? Number.MAX_SAFE_INTEGER) - 1),
      filters.budgetMs,
    );
    for (let ids = windows.next(); ids; ids = windows.next()) {
      const rows = await this.query<ListedReport & { id: number }>(sql, [
        ...values,
        reading.wanted(),
        ids.high,
        ids.low,
      ]);
      if (!reading.take(rows, ids.low + 1)) break;
    }
    return reading.result();
  }

  async exceptionGroups({ window, limit }: ExceptionGroupQuery): Promise<ExceptionGroupSummary[]> {
    const groups = await this.query<ExceptionGroupSummary>(EXCEPTION_GROUPS, [window, limit]);
    for (const group of groups) group.routes.sort();
    return groups;
  }

  async count(): Promise<number> {
    const rows = await this.query<{ reports: number }>('SELECT reports FROM vigil_report_count WHERE id = 1');
    return rows[0]?.reports ?? 0;
  }

  async writeOverview(holder: string, minutes: readonly CountedMinute[], upkeep: OverviewUpkeep): Promise<void> {
    await this.transaction((client) => writeOverview(client, holder, minutes, upkeep));
  }

  async readOverview(from: number): Promise<MinuteCounts> {
    return this.run((client) => readOverview(client, from));
  }

  async leaseTokens(count: number): Promise<string[]> {
    return this.run((client) => this.leases.lease(client, count));
  }

  async purge(
    { maxReports, maxAgeMs }: Retention,
    { now = Date.now(), lease }: PurgeOptions = {},
  ): Promise<number | undefined> {
    const request = lease && { holder: lease.holder, ms: lease.ms, now };
    // Transactions of its own, one per chunk.
    return this.run((client) => purgeReports(client, now - maxAgeMs, maxReports, request, this.purgeChunk));
  }

  async releaseRetention(holder: string): Promise<void> {
    await this.run((client) => releaseRetention(client, holder));
  }

  async clear(): Promise<number> {
    return this.transaction((client) => clearReports(client));
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.closes++;
    this.opened = false;
    this.pool = undefined;
    this.schema = undefined;
    // The server finishes or drops a build under way; the next start completes it.
    const indexer = this.indexer;
    this.indexer = undefined;
    await Promise.all([pool?.end(), indexer?.end().catch(() => undefined)]);
  }

  /** The pool, made at the first call that needs the server. */
  private async connections(): Promise<pg.Pool> {
    const closes = this.closes;
    const driver = await loadPg();
    // Closed while the driver loaded: no pool is made that nothing would end.
    if (this.closes !== closes) throw new Error('the store was closed while it connected');
    if (this.pool) return this.pool;
    const pool = new driver.Pool({
      connectionString: this.dsn.url,
      // A few suffice (one batch at a time, a lease now and then, the pages' reads), and instances
      // share the server's `max_connections`.
      max: this.dsn.poolSize,
      connectionTimeoutMillis: this.connectTimeoutMs,
      idleTimeoutMillis: IDLE_CONNECTION_MS,
      // An idle pooled connection does not keep the command line's process alive.
      allowExitOnIdle: true,
      statement_timeout: this.statementTimeoutMs,
      query_timeout: this.statementTimeoutMs + 1000,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
      keepAlive: true,
      application_name: 'vigil',
      types: numericBigints(driver),
    });
    // An idle connection the server closed (a restart): the pool drops it and opens another when needed.
    pool.on('error', () => undefined);
    this.pool = pool;
    return pool;
  }

  /** A server down at start does not stop the start: the layout is prepared at the first call that reaches it. */
  private prepared(): Promise<void> {
    this.schema ??= this.withClient(async (client) => {
      await prepareSchema(client, newTokenKey);
      await this.prepareIndexes(client);
    }).catch((error: unknown) => {
      this.schema = undefined;
      throw error;
    });
    return this.schema;
  }

  /** The search indexes: built now in a small store, in the background in a large one (`postgres-search-indexes.ts`). */
  private async prepareIndexes(client: pg.PoolClient): Promise<void> {
    if ((await missingIndexes(client)).length === 0) return;
    const { rows } = await client.query<{ reports: number }>('SELECT reports FROM vigil_report_count WHERE id = 1');
    if ((rows[0]?.reports ?? 0) <= INDEX_AT_OPEN_LIMIT) return createIndexesNow(client, this.location, this.notify);
    if (this.indexer) return;
    void this.buildIndexesInBackground();
  }

  private async buildIndexesInBackground(): Promise<void> {
    const driver = await loadPg();
    const indexer = new driver.Client({
      connectionString: this.dsn.url,
      connectionTimeoutMillis: this.connectTimeoutMs,
      // A build of millions of rows takes minutes; writes and reads go on meanwhile.
      statement_timeout: 0,
      keepAlive: true,
      application_name: 'vigil-indexer',
    });
    indexer.on('error', () => undefined);
    this.indexer = indexer;
    try {
      await indexer.connect();
      await buildIndexesConcurrently(indexer, this.location, this.notify);
    } catch (error) {
      if (this.indexer === indexer)
        this.notify(
          `The report store ${this.location} could not build its search indexes (${describePgError(error)}): the next start tries again`,
        );
    } finally {
      if (this.indexer === indexer) this.indexer = undefined;
      await indexer.end().catch(() => undefined);
    }
  }

  /**
   * Runs `use` on a pooled connection, the layout prepared; a failure comes back as a
   * {@link ReportStoreError} naming the store, or a {@link ReportStoreUnavailableError}.
   */
  private async run<T>(use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (!this.opened) throw new ReportStoreError(this.location, `the report store ${this.location} is not open`);
    await this.prepared();
    return this.withClient(use);
  }

  private query<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
    return this.run(async (client) => (await client.query<T>(sql, values)).rows);
  }

  private transaction<T>(use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.run(async (client) => {
      await client.query('BEGIN');
      const result = await use(client);
      await client.query('COMMIT');
      return result;
    });
  }

  private async withClient<T>(use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await (await this.connections()).connect();
    } catch (error) {
      throw this.failure(error);
    }
    // A connection cut between two statements is reported as an event: without a listener it would end the process.
    const onError = () => undefined;
    client.on('error', onError);
    try {
      const result = await use(client);
      client.removeListener('error', onError);
      client.release();
      return result;
    } catch (error) {
      // The connection may be broken, or still inside the failed transaction: it is closed, not reused.
      client.removeListener('error', onError);
      client.release(true);
      throw this.failure(error);
    }
  }

  private failure(error: unknown): ReportStoreError {
    if (error instanceof ReportStoreError) return error;
    const reason = describePgError(error);
    if (isUnavailable(error)) return new ReportStoreUnavailableError(this.location, reason, { cause: error });
    return new ReportStoreError(this.location, `the report store ${this.location} failed: ${reason}`, { cause: error });
  }
}
