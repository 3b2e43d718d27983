/**
 * The SQLite store's search indexes, and how the write side keeps them. Exact filters
 * (status, method) have a B-tree each, with the id, so the newest first is a walk of it;
 * the time and the token have theirs since version 1. The part-of filters (URL, IP) have
 * a trigram table each (FTS5, case-sensitive, as the search is), over the reports' own
 * columns (external content): it holds only which report has which three characters.
 *
 * The writer indexes a batch in its own transaction, with one statement per table (FTS5
 * writes its pending terms at the end of each statement: a statement per report would cost
 * several times more), and takes the reports it deletes out of the tables first, giving
 * FTS5 their values (a `delete` by rowid alone, in a contentless table, costs more than
 * the insert). A report not indexed yet (below the backfill's mark) is not taken out.
 *
 * A file of an older version gets the tables at open, empty, with `search_backfill` naming
 * the id below which reports are not indexed yet; the write thread then builds the B-trees
 * and fills the tables in chunks, newest first, between other commands. Until it is done,
 * part-of searches scan (`sqlite-search.ts`).
 */
import type { SqliteDatabase } from './sqlite-driver.js';

const TRIGRAMS = "content='reports', content_rowid='id', tokenize='trigram case_sensitive 1', detail=none";

export const SEARCH_TABLES = `
CREATE VIRTUAL TABLE IF NOT EXISTS reports_url_search USING fts5(url, ${TRIGRAMS});
CREATE VIRTUAL TABLE IF NOT EXISTS reports_ip_search USING fts5(ip, ${TRIGRAMS});
CREATE TABLE IF NOT EXISTS search_backfill (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  below INTEGER NOT NULL
);
`;

const BTREES: ReadonlyArray<readonly [name: string, on: string]> = [
  ['reports_by_status', '(status, id)'],
  ['reports_by_method', '(method, id)'],
];

export const SEARCH_BTREES = BTREES.map(([name, on]) => `CREATE INDEX IF NOT EXISTS ${name} ON reports ${on};`).join('\n');

export const SEARCH_PROBES = ['SELECT rowid FROM reports_url_search LIMIT 0', 'SELECT rowid FROM reports_ip_search LIMIT 0', 'SELECT id, below FROM search_backfill LIMIT 0'];

/** Reports indexed by one step of the background fill: one short transaction. */
const FILL_CHUNK = 5000;

/** In the migrating transaction: an empty store gets its B-trees now; one with reports is indexed later. */
export function startIndexing(db: SqliteDatabase): void {
  const newest = db.prepare('SELECT max(id) FROM reports').pluck().get() as number | null;
  if (newest === null) db.exec(SEARCH_BTREES);
  else db.prepare('INSERT INTO search_backfill (id, below) VALUES (1, ?) ON CONFLICT (id) DO NOTHING').run(newest + 1);
}

export interface SearchIndexWrites {
  /** The id the next batch's reports come after. */
  newestId(): number;
  /** Indexes the reports above `after`: those the batch just inserted. */
  indexAfter(after: number): void;
  /** Deletes these reports, and their rows of the trigram tables. */
  deleteReports(ids: readonly number[]): number;
  /** Empties the trigram tables, with the reports. */
  clear(): void;
  /**
   * One step of the background work of an older file: a B-tree, or a chunk of reports
   * into the trigram tables. False once nothing is left.
   */
  fillStep(): boolean;
}

export function prepareSearchIndex(db: SqliteDatabase): SearchIndexWrites {
  const newest = db.prepare('SELECT coalesce(max(id), 0) FROM reports').pluck();
  const indexUrl = db.prepare('INSERT INTO reports_url_search (rowid, url) SELECT id, url FROM reports WHERE id > ?');
  const indexIp = db.prepare('INSERT INTO reports_ip_search (rowid, ip) SELECT id, ip FROM reports WHERE id > ?');
  const ids = 'SELECT value FROM json_each(?)';
  const indexed = `id IN (${ids}) AND id >= coalesce((SELECT below FROM search_backfill WHERE id = 1), 0)`;
  const unindexUrl = db.prepare(`INSERT INTO reports_url_search (reports_url_search, rowid, url) SELECT 'delete', id, url FROM reports WHERE ${indexed}`);
  const unindexIp = db.prepare(`INSERT INTO reports_ip_search (reports_ip_search, rowid, ip) SELECT 'delete', id, ip FROM reports WHERE ${indexed}`);
  const deleteRows = db.prepare(`DELETE FROM reports WHERE id IN (${ids})`);

  const backfill = db.prepare('SELECT below FROM search_backfill WHERE id = 1').pluck();
  const chunkStart = db.prepare('SELECT min(id) FROM (SELECT id FROM reports WHERE id < ? ORDER BY id DESC LIMIT ?)').pluck();
  const fillUrl = db.prepare('INSERT INTO reports_url_search (rowid, url) SELECT id, url FROM reports WHERE id >= ? AND id < ?');
  const fillIp = db.prepare('INSERT INTO reports_ip_search (rowid, ip) SELECT id, ip FROM reports WHERE id >= ? AND id < ?');
  const lower = db.prepare('UPDATE search_backfill SET below = ? WHERE id = 1');
  const done = db.prepare('DELETE FROM search_backfill');
  const existing = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").pluck();

  // Immediate, and read again inside: several processes on one file share the work, each chunk done once.
  const fillStep = db.transaction((): boolean => {
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

  return {
    newestId: () => newest.get() as number,
    indexAfter(after) {
      indexUrl.run(after);
      indexIp.run(after);
    },
    deleteReports(list) {
      if (list.length === 0) return 0;
      const json = JSON.stringify(list);
      unindexUrl.run(json);
      unindexIp.run(json);
      return deleteRows.run(json).changes;
    },
    clear() {
      db.exec("INSERT INTO reports_url_search (reports_url_search) VALUES ('delete-all'); INSERT INTO reports_ip_search (reports_ip_search) VALUES ('delete-all'); DELETE FROM search_backfill;");
    },
    fillStep: () => fillStep.immediate(),
  };
}
