/**
 * The SQLite store's search indexes, and how the write side keeps them: a B-tree per exact filter,
 * an FTS5 trigram table per part-of filter (URL, IP). A batch is not indexed as it is written: the
 * write thread indexes the newest reports (the tail) later, in chunks, and searches read the tail
 * row by row (`sqlite-search.ts`), so a report is found as soon as it is stored.
 */
import type { SqliteDatabase } from './sqlite-driver.js';

const TRIGRAMS = "content='reports', content_rowid='id', tokenize='trigram case_sensitive 1', detail=none";

/**
 * The trigram tables are case-sensitive, as the search is, and index the reports' own columns
 * (external content): they hold only which report has which three characters. `search_tail.after`
 * marks the tail; `search_deleted` keeps deleted reports' URL and IP until they are taken out of the
 * trigram tables (FTS5 needs the values); `search_backfill.below` is the id under which an older
 * file's reports are not indexed yet.
 */
export const SEARCH_TABLES = `
CREATE VIRTUAL TABLE IF NOT EXISTS reports_url_search USING fts5(url, ${TRIGRAMS});
CREATE VIRTUAL TABLE IF NOT EXISTS reports_ip_search USING fts5(ip, ${TRIGRAMS});
CREATE TABLE IF NOT EXISTS search_backfill (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  below INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS search_tail (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  after INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS search_deleted (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL,
  ip TEXT NOT NULL
);
`;

/**
 * A B-tree per exact filter, with the id, so that newest first is a walk of it. Those of the
 * exception and its fingerprint hold only the reports that have one; `reports_by_id_with_exception`
 * gives those reports newest first, for the exceptions page's groups.
 */
const BTREES: ReadonlyArray<readonly [name: string, on: string]> = [
  ['reports_by_status', '(status, id)'],
  ['reports_by_method', '(method, id)'],
  ['reports_by_route', '(route, id)'],
  ['reports_by_exception', '(exception, id) WHERE exception IS NOT NULL'],
  ['reports_by_fingerprint', '(fingerprint, id) WHERE fingerprint IS NOT NULL'],
  ['reports_by_id_with_exception', '(id) WHERE fingerprint IS NOT NULL'],
];

export const SEARCH_BTREES = BTREES.map(([name, on]) => `CREATE INDEX IF NOT EXISTS ${name} ON reports ${on};`).join(
  '\n',
);

export const SEARCH_PROBES = [
  'SELECT rowid FROM reports_url_search LIMIT 0',
  'SELECT rowid FROM reports_ip_search LIMIT 0',
  'SELECT id, below FROM search_backfill LIMIT 0',
  'SELECT id, after FROM search_tail LIMIT 0',
  'SELECT id, url, ip FROM search_deleted LIMIT 0',
];

/** Reports indexed by one step of the background fill: one short transaction. */
const FILL_CHUNK = 5000;

/**
 * Reports indexed, or deleted reports taken out, by one step of the tail's indexing: one transaction.
 * One statement per table for thousands of reports costs FTS5 far less than one per batch.
 */
const TAIL_CHUNK = 5000;

/** In the migrating transaction: every report of a file is indexed, or left to the backfill; none is in the tail. */
export function startTail(db: SqliteDatabase): void {
  db.prepare(
    'INSERT INTO search_tail (id, after) VALUES (1, (SELECT coalesce(max(id), 0) FROM reports)) ON CONFLICT (id) DO NOTHING',
  ).run();
}

/** In the migrating transaction: an empty store gets its B-trees now; one with reports is indexed later. */
export function startIndexing(db: SqliteDatabase): void {
  const newest = db.prepare('SELECT max(id) FROM reports').pluck().get() as number | null;
  if (newest === null) db.exec(SEARCH_BTREES);
  else db.prepare('INSERT INTO search_backfill (id, below) VALUES (1, ?) ON CONFLICT (id) DO NOTHING').run(newest + 1);
}

export interface SearchIndexWrites {
  /**
   * Before a batch: the mark comes down to the newest id, so the batch's reports are in the tail,
   * even those that take the ids of deleted ones.
   */
  keepTailAbove(): void;
  /** How many ids the tail spans, and deleted reports wait to be taken out. */
  tailLength(): number;
  /** Takes a chunk of deleted reports out, or indexes a chunk of the tail, in its own transaction; returns what is left. */
  indexTail(): number;
  /** Deletes these reports; their rows of the trigram tables are taken out with the tail's next chunk. */
  deleteReports(ids: readonly number[]): number;
  /** Empties the trigram tables, with the reports. */
  clear(): void;
  /**
   * One step of the background work of an older file: a B-tree, or a chunk of reports
   * into the trigram tables, newest first; until it is done, part-of searches scan.
   * False once nothing is left.
   */
  fillStep(): boolean;
}

export function prepareSearchIndex(db: SqliteDatabase): SearchIndexWrites {
  const lowerTail = db.prepare(
    'UPDATE search_tail SET after = (SELECT coalesce(max(id), 0) FROM reports) WHERE id = 1 AND after > (SELECT coalesce(max(id), 0) FROM reports)',
  );
  const tail = prepareTail(db);
  const deleteReports = prepareDeletes(db);
  const fillStep = prepareFill(db);
  return {
    keepTailAbove: () => void lowerTail.run(),
    tailLength: tail.pending,
    indexTail: () => tail.indexTail.immediate(),
    deleteReports,
    clear() {
      db.exec(
        "INSERT INTO reports_url_search (reports_url_search) VALUES ('delete-all'); INSERT INTO reports_ip_search (reports_ip_search) VALUES ('delete-all'); DELETE FROM search_backfill; DELETE FROM search_deleted; UPDATE search_tail SET after = 0;",
      );
    },
    fillStep: () => fillStep.immediate(),
  };
}

/** The tail's indexing: deleted reports taken out of the trigram tables, then the newest reports put in. */
function prepareTail(db: SqliteDatabase) {
  const tail = db.prepare(
    'SELECT (SELECT after FROM search_tail WHERE id = 1) AS after, (SELECT coalesce(max(id), 0) FROM reports) AS newest',
  );
  const indexUrl = db.prepare(
    'INSERT INTO reports_url_search (rowid, url) SELECT id, url FROM reports WHERE id > ? AND id <= ?',
  );
  const indexIp = db.prepare(
    'INSERT INTO reports_ip_search (rowid, ip) SELECT id, ip FROM reports WHERE id > ? AND id <= ?',
  );
  const raiseTail = db.prepare('UPDATE search_tail SET after = ? WHERE id = 1');
  const deletedCount = db.prepare('SELECT count(*) AS n FROM search_deleted');
  const deletedChunkEnd = db.prepare('SELECT max(id) AS last FROM (SELECT id FROM search_deleted ORDER BY id LIMIT ?)');
  const unindexUrl = db.prepare(
    "INSERT INTO reports_url_search (reports_url_search, rowid, url) SELECT 'delete', id, url FROM search_deleted WHERE id <= ?",
  );
  const unindexIp = db.prepare(
    "INSERT INTO reports_ip_search (reports_ip_search, rowid, ip) SELECT 'delete', id, ip FROM search_deleted WHERE id <= ?",
  );
  const forgetDeleted = db.prepare('DELETE FROM search_deleted WHERE id <= ?');

  // No mark (a file that lacks its row): nothing is taken as the tail.
  const tailNow = () => {
    const { after, newest } = tail.get() as { after: number | null; newest: number };
    return { after: after ?? newest, newest };
  };
  const pending = () => {
    const { after, newest } = tailNow();
    return newest - after + (deletedCount.get() as { n: number }).n;
  };
  // Immediate, and read inside: processes sharing the file index each chunk once. Deleted reports go
  // out first, so an id used again is never indexed while its old terms are there. Until then the
  // trigram tables may name a deleted report: searches join the reports, which drops it.
  const indexTail = db.transaction((): number => {
    const { last } = deletedChunkEnd.get(TAIL_CHUNK) as { last: number | null };
    if (last !== null) {
      unindexUrl.run(last);
      unindexIp.run(last);
      forgetDeleted.run(last);
      // More waiting go first. Otherwise the tail has its chunk in this step too: a retention run's
      // steady deletions would leave it none.
      if ((deletedCount.get() as { n: number }).n > 0) return 1 + pending();
    }
    const { after, newest } = tailNow();
    const upTo = Math.min(newest, after + TAIL_CHUNK);
    if (upTo <= after) return 0;
    indexUrl.run(after, upTo);
    indexIp.run(after, upTo);
    raiseTail.run(upTo);
    return newest - upTo;
  });
  return { pending, indexTail };
}

/** Deletes reports, keeping the URL and IP of those already indexed until the tail's next chunk takes them out. */
function prepareDeletes(db: SqliteDatabase): SearchIndexWrites['deleteReports'] {
  const ids = 'SELECT value FROM json_each(?)';
  const indexed = `id IN (${ids}) AND id >= coalesce((SELECT below FROM search_backfill WHERE id = 1), 0) AND id <= coalesce((SELECT after FROM search_tail WHERE id = 1), id)`;
  const keepDeleted = db.prepare(
    `INSERT INTO search_deleted (id, url, ip) SELECT id, url, ip FROM reports WHERE ${indexed} ON CONFLICT (id) DO NOTHING`,
  );
  const deleteRows = db.prepare(`DELETE FROM reports WHERE id IN (${ids})`);
  return (list) => {
    if (list.length === 0) return 0;
    const json = JSON.stringify(list);
    keepDeleted.run(json);
    return deleteRows.run(json).changes;
  };
}

/** The background fill of an older file: its B-trees, then its reports into the trigram tables, newest first. */
function prepareFill(db: SqliteDatabase) {
  const backfill = db.prepare('SELECT below FROM search_backfill WHERE id = 1').pluck();
  const chunkStart = db
    .prepare('SELECT min(id) FROM (SELECT id FROM reports WHERE id < ? ORDER BY id DESC LIMIT ?)')
    .pluck();
  const fillUrl = db.prepare(
    'INSERT INTO reports_url_search (rowid, url) SELECT id, url FROM reports WHERE id >= ? AND id < ?',
  );
  const fillIp = db.prepare(
    'INSERT INTO reports_ip_search (rowid, ip) SELECT id, ip FROM reports WHERE id >= ? AND id < ?',
  );
  const lower = db.prepare('UPDATE search_backfill SET below = ? WHERE id = 1');
  const done = db.prepare('DELETE FROM search_backfill');
  const existing = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").pluck();

  // Immediate, and read again inside: several processes on one file share the work, each chunk done once.
  return db.transaction((): boolean => {
    const below = backfill.get() as number | undefined;
    const missing = BTREES.find(([name]) => existing.get(name) === undefined);
    if (missing) {
      db.exec(`CREATE INDEX IF NOT EXISTS ${missing[0]} ON reports ${missing[1]}`);
      return true;
    }
    if (below === undefined) return false;
    const from = chunkStart.get(below, FILL_CHUNK) as number | null;
    if (from === null) {
      done.run();
      return false;
    }
    fillUrl.run(from, below);
    fillIp.run(from, below);
    lower.run(from);
    return true;
  });
}
