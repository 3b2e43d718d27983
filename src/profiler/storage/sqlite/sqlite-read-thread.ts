/**
 * The report store's read thread: a read-only connection to the store's file (WAL lets it read while
 * the write thread writes) answering the profiler's reads, so the thread that answers requests only
 * posts and awaits, however long a search takes. A file lost or damaged is answered FILE_LOST or
 * FILE_DAMAGED (`sqlite-faults.ts`), for the store to open it again with a new read thread.
 */
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.js';
import { parentPort, workerData } from 'node:worker_threads';
import type { ReportSearch, ReportSummary, SearchResult } from '../../model/report.js';
import { FILE_DAMAGED, FILE_LOST, FileWatch, ThreadConnection } from './sqlite-faults.js';
import { openReadConnection } from './sqlite-open.js';
import { IdWindows, NewestFirstReading } from '../search-windows.js';
import { searchStatement, SUMMARY_COLUMNS, TrigramSample } from './sqlite-search.js';
import type { WriteReply } from './sqlite-write-thread.js';

export interface ReadThreadData {
  file: string;
}

export type ReadCommand =
  | { id: number; kind: 'read'; token: string }
  | { id: number; kind: 'search'; filters: ReportSearch }
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
 * A search by URL or IP part reads its reports one at a time, newest first, so that with a
 * budget it stops between two and says where: a trigram lookup in one statement (FTS5
 * reads a range of ids at a cost of its own, whatever its width), a part no trigram answers
 * in windows of ids.
 */
function search(c: Connection, filters: ReportSearch): SearchResult {
  // The sample is read only when a trigram is weighed.
  const { scan, lookup, window, values, limit } = searchStatement(
    filters,
    c.indexed.get() === 1,
    (field) => (trigram) => sampleOf(c, field)(trigram),
  );
  if (scan !== undefined) return { reports: statement(c, scan).all(...values, limit) as ReportSummary[] };
  const reading = new NewestFirstReading(limit, filters.budgetMs);
  let high = Math.min((c.newestId.get() as number | null) ?? 0, (filters.before ?? Number.MAX_SAFE_INTEGER) - 1);
  if (lookup !== undefined) {
    const after = (c.tail.get() as { after: number } | undefined)?.after ?? Number.MAX_SAFE_INTEGER;
    const tail = statement(c, lookup.tail).iterate(after, ...values, limit);
    high = Math.min(high, after);
    if (reading.take(tail, high + 1, false))
      reading.take(statement(c, lookup.sql).iterate(lookup.match, high, ...values, reading.wanted()), 1);
    return reading.result();
  }
  const windows = new IdWindows(high, filters.budgetMs);
  for (let ids = windows.next(); ids; ids = windows.next()) {
    if (!reading.take(statement(c, window).iterate(ids.high, ids.low, ...values, reading.wanted()), ids.low + 1)) break;
  }
  return reading.result();
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

function apply(command: Exclude<ReadCommand, { kind: 'close' }>): unknown {
  const c = connection.use(open);
  // Reads of a file deleted or replaced would go on answering from it: the store opens the new one.
  const lost = c.watch.lost();
  if (lost !== undefined) connection.give(FILE_LOST, lost);
  try {
    if (command.kind === 'read') return c.readRow.get(command.token);
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
