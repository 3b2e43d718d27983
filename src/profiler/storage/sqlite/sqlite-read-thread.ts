/**
 * The report store's read thread: a read-only connection to the store's file (WAL lets it read while
 * the write thread writes) answering the profiler's reads, so the thread that answers requests only
 * posts and awaits, however long a search takes. A file lost or damaged is answered FILE_LOST or
 * FILE_DAMAGED (`sqlite-faults.ts`), for the store to open it again with a new read thread.
 */
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.js';
import { parentPort, workerData } from 'node:worker_threads';
import type {
  ExceptionGroupQuery,
  ExceptionGroupSummary,
  ListedReport,
  ReportSearch,
  ReportSummary,
  SearchResult,
} from '../../model/report.js';
import { FILE_DAMAGED, FILE_LOST, FileWatch, ThreadConnection } from './sqlite-faults.js';
import { openReadConnection } from './sqlite-open.js';
import { readOverview } from './sqlite-overview.js';
import { IdWindows, NewestFirstReading, type ReadRow, WINDOW } from '../search-windows.js';
import {
  EXCEPTION_GROUPS,
  searchStatement,
  SUMMARIES_OF_IDS,
  SUMMARY_COLUMNS,
  TrigramSample,
} from './sqlite-search.js';
import type { WriteReply } from './sqlite-write-thread.js';

export interface ReadThreadData {
  file: string;
}

export type ReadCommand =
  | { id: number; kind: 'read'; token: string }
  | { id: number; kind: 'search'; filters: ReportSearch }
  | { id: number; kind: 'overview'; from: number }
  | { id: number; kind: 'exception-groups'; query: ExceptionGroupQuery }
  | { id: number; kind: 'close' };

/** A stored report as read: its summary, its sections as JSON, its trace's JSON. */
export type ReportRow = ReportSummary & { data: string; traceJson: string | null };

const { file } = workerData as ReadThreadData;

/** How many of the newest reports tell how common a trigram is, for how long, and how much of each value. */
const SAMPLED_REPORTS = 2000;
const SAMPLE_MS = 60_000;
const SAMPLED_CHARACTERS = 256;

interface Connection {
  db: SqliteDatabase;
  watch: FileWatch;
  readRow: SqliteStatement;
  /** The trigram tables hold every report below the tail (no background fill under way). */
  indexed: SqliteStatement;
  /** The mark above which reports are the search tail, not indexed yet. */
  tail: SqliteStatement;
  newestId: SqliteStatement;
  /** A search's statements, read in one snapshot. */
  searching: (filters: ReportSearch) => SearchResult;
  /** Search statements by their SQL: a few combinations of filters. */
  searches: Map<string, SqliteStatement>;
  /** The newest reports' URLs or IPs, and when they were read. */
  samples: Map<'url' | 'ip', { sample: TrigramSample; at: number }>;
}

const connection = new ThreadConnection<Connection>();

function open(): Connection {
  const db = openReadConnection(file);
  try {
    const c: Connection = {
      db,
      watch: new FileWatch(file),
      readRow: db.prepare(
        `SELECT ${SUMMARY_COLUMNS}, data, traces.json AS traceJson FROM reports LEFT JOIN traces ON traces.hash = reports.trace WHERE token = ?`,
      ),
      indexed: db.prepare('SELECT NOT EXISTS (SELECT 1 FROM search_backfill)').pluck(),
      tail: db.prepare('SELECT after FROM search_tail WHERE id = 1'),
      searches: new Map(),
      samples: new Map(),
      newestId: db.prepare('SELECT max(id) FROM reports').pluck(),
      searching: () => ({ reports: [] }),
    };
    c.searching = db.transaction((filters: ReportSearch) => search(c, filters));
    return c;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * A search by URL or IP part reads the ids of its reports newest first, so that with a budget
 * it stops between two and says where, then their summaries: the tail of reports the trigram
 * tables do not hold yet (and a part no trigram answers) in windows of ids, then a trigram
 * lookup in one statement (FTS5 reads a range of ids at a cost of its own, whatever its
 * width), which gives each report it reads with whether it meets the filters.
 */
function search(c: Connection, filters: ReportSearch): SearchResult {
  // The sample is read only when a trigram is weighed.
  const { scan, window, lookup, walk, values, limit } = searchStatement(
    filters,
    c.indexed.get() === 1,
    (field) => (trigram) => sampleOf(c, field)(trigram),
  );
  if (scan !== undefined) return { reports: statement(c, scan).all(...values, limit) as ListedReport[] };
  const reading = new NewestFirstReading<ReadRow>(limit, filters.budgetMs);
  const high = Math.min((c.newestId.get() as number | null) ?? 0, (filters.before ?? Number.MAX_SAFE_INTEGER) - 1);
  if (walk !== undefined) {
    const { narrow } = walk;
    if (
      narrow &&
      (statement(c, narrow.count)
        .pluck()
        .get(...narrow.values) as number) < WINDOW
    )
      return { reports: statement(c, narrow.scan).all(...values, limit) as ListedReport[] };
    reading.take(statement(c, walk.sql).iterate(...values, ...walk.driving, high) as Iterable<ReadRow>, 1);
    return summaries(c, reading);
  }
  // No mark (a file that lacks its row): nothing is taken as the tail.
  const after = lookup ? Math.min(high, (c.tail.get() as { after: number } | undefined)?.after ?? high) : 0;
  const windows = new IdWindows(high, filters.budgetMs, after);
  let readingOn = true;
  for (let ids = windows.next(); ids && readingOn; ids = windows.next()) {
    const rows = statement(c, window).iterate(ids.high, ids.low, ...values, reading.wanted());
    readingOn = reading.take(rows as Iterable<ReadRow>, ids.low + 1);
  }
  if (readingOn && lookup) {
    const rows = statement(c, lookup.sql).iterate(...values, lookup.match, after);
    reading.take(rows as Iterable<ReadRow>, 1);
  }
  return summaries(c, reading);
}

function exceptionGroups(c: Connection, { window, limit }: ExceptionGroupQuery): ExceptionGroupSummary[] {
  type Row = Omit<ExceptionGroupSummary, 'statuses' | 'routes'> & { statuses: string; routes: string };
  const rows = statement(c, EXCEPTION_GROUPS).all(window, limit) as Row[];
  return rows.map((row) => ({
    ...row,
    statuses: (JSON.parse(row.statuses) as number[]).sort((a, b) => a - b),
    routes: (JSON.parse(row.routes) as string[]).sort(),
  }));
}

/** The summaries of the reports a reading kept, and where it stopped. */
function summaries(c: Connection, reading: NewestFirstReading<ReadRow>): SearchResult {
  const ids = reading.kept().map((row) => row.id);
  const reports = ids.length === 0 ? [] : (statement(c, SUMMARIES_OF_IDS).all(JSON.stringify(ids)) as ListedReport[]);
  const continueBelow = reading.continueBelow();
  return continueBelow === undefined ? { reports } : { reports, continueBelow };
}

/** How common each trigram of a field is among the newest reports, read again after a minute. */
function sampleOf(c: Connection, field: 'url' | 'ip'): (trigram: string) => number {
  const now = Date.now();
  let held = c.samples.get(field);
  if (!held || now - held.at > SAMPLE_MS) {
    const values = statement(c, `SELECT substr(${field}, 1, ?) FROM reports ORDER BY id DESC LIMIT ?`)
      .pluck()
      .all(SAMPLED_CHARACTERS, SAMPLED_REPORTS);
    held = { sample: new TrigramSample(values as string[]), at: now };
    c.samples.set(field, held);
  }
  return held.sample.share;
}

function statement(c: Connection, sql: string): SqliteStatement {
  let prepared = c.searches.get(sql);
  if (!prepared) c.searches.set(sql, (prepared = c.db.prepare(sql)));
  return prepared;
}

/**
 * A report's row, its JSON checked: bytes overwritten inside a row's text pass SQLite's own
 * checks, and the file is as damaged as if they had hit its structure.
 */
function readReport(c: Connection, token: string): unknown {
  const row = c.readRow.get(token) as { data: string; traceJson: string | null } | undefined;
  if (row === undefined) return row;
  try {
    JSON.parse(row.data);
    if (row.traceJson !== null) JSON.parse(row.traceJson);
  } catch (error) {
    connection.give(FILE_DAMAGED, `the report ${token} is not readable: ${(error as Error).message}`);
  }
  return row;
}

function apply(command: Exclude<ReadCommand, { kind: 'close' }>): unknown {
  const c = connection.use(open);
  // Reads of a file deleted or replaced would go on answering from it: the store opens the new one.
  const lost = c.watch.lost();
  if (lost !== undefined) connection.give(FILE_LOST, lost);
  try {
    if (command.kind === 'read') return readReport(c, command.token);
    if (command.kind === 'overview') return readOverview(c.db, command.from);
    if (command.kind === 'exception-groups') return exceptionGroups(c, command.query);
    // One read transaction: the tail and the lookup see the same mark.
    return c.searching(command.filters);
  } catch (error) {
    const damage = c.watch.damageAfter(c.db, error);
    if (damage !== undefined) connection.give(FILE_DAMAGED, damage);
    throw error;
  }
}

parentPort!.on('message', (command: ReadCommand) => {
  try {
    let result: unknown = null;
    if (command.kind === 'close') {
      connection.close();
    } else {
      result = apply(command);
    }
    parentPort!.postMessage({ id: command.id, result } satisfies WriteReply);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    parentPort!.postMessage({
      id: command.id,
      error: (error as Error).message,
      code: typeof code === 'string' ? code : undefined,
    } satisfies WriteReply);
  }
  if (command.kind === 'close') parentPort!.close();
});
