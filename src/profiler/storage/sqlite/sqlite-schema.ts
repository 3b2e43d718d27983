/**
 * The layout of the report store's SQLite file, and the move from an older layout. Reports are rows
 * in arrival order (rowid), found by token through a unique index; a stack trace, the same for every
 * request failing on one path, is stored once in `traces` under a hash of its JSON.
 */
import { randomBytes } from 'node:crypto';
import type { SqliteDatabase } from './sqlite-driver.js';
import { TOKEN_KEY_BYTES } from '../../tokens/token-permutation.js';
import { SEARCH_BTREES, SEARCH_PROBES, SEARCH_TABLES, startIndexing, startTail } from './sqlite-search-index.js';

/**
 * Older layouts, moved forward at open:
 * 1 kept whole reports in token order (WITHOUT ROWID), each insert on a random page; its reports are moved.
 * 2 had no token counter: its tokens were drawn at random, and a lease skips those still stored.
 * 3 had no search indexes: it gets them empty, filled in the background (`sqlite-search-index.ts`).
 * 4 indexed each batch as it was written: it gets the search tail's mark, its reports taken as indexed.
 * 5 had no facts beside the summary (route, exception, fingerprint, statements, calls, browser asset):
 *   it gets the columns, null in its reports (not a browser asset), and their B-trees in the background.
 */
const SCHEMA_VERSION = 6;

/** The facts kept beside the summary (`report-facts.ts`), as version 6 added them. */
const FACT_COLUMNS: ReadonlyArray<readonly [name: string, type: string]> = [
  ['route', 'TEXT'],
  ['exception', 'TEXT'],
  ['fingerprint', 'TEXT'],
  ['statements', 'INTEGER'],
  ['calls', 'INTEGER'],
  ['asset', 'INTEGER NOT NULL DEFAULT 0'],
];

// `token_counter`: the one row every process leases tokens from (the next value and the key of the
// store's token permutation, drawn when the file is created); `retention_lease`: who runs the retention, until when.
const CREATE = `
CREATE TABLE IF NOT EXISTS reports (
  id INTEGER PRIMARY KEY,
  token TEXT NOT NULL,
  time INTEGER NOT NULL,
  method TEXT NOT NULL,
  url TEXT NOT NULL,
  status INTEGER NOT NULL,
  ip TEXT NOT NULL,
  duration REAL NOT NULL,
  data TEXT NOT NULL,
  trace TEXT,
  ${FACT_COLUMNS.map(([name, type]) => `${name} ${type}`).join(',\n  ')}
);
CREATE UNIQUE INDEX IF NOT EXISTS reports_by_token ON reports (token);
CREATE INDEX IF NOT EXISTS reports_by_time ON reports (time);
CREATE INDEX IF NOT EXISTS reports_by_trace ON reports (trace) WHERE trace IS NOT NULL;
${SEARCH_TABLES}
CREATE TABLE IF NOT EXISTS traces (
  hash TEXT PRIMARY KEY,
  json TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS token_counter (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  next INTEGER NOT NULL,
  key BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS retention_lease (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  holder TEXT NOT NULL,
  expires INTEGER NOT NULL
);
`;

const V1_COLUMNS = 'token, time, method, url, status, ip, duration, data';

/** Statements that read every column the store uses; preparing them fails on a file that lacks one. */
const PROBES = [
  `SELECT id, token, time, method, url, status, ip, duration, data, trace, ${FACT_COLUMNS.map(([name]) => name).join(', ')} FROM reports LIMIT 0`,
  'SELECT hash, json FROM traces LIMIT 0',
  'SELECT id, next, key FROM token_counter LIMIT 0',
  'SELECT id, holder, expires FROM retention_lease LIMIT 0',
  ...SEARCH_PROBES,
];

/** The counter's row, with a new key, unless the file has one. */
export const CREATE_COUNTER = 'INSERT INTO token_counter (id, next, key) VALUES (1, 0, ?) ON CONFLICT (id) DO NOTHING';

/** A fresh key for a store's token permutation. */
export function newTokenKey(): Buffer {
  return randomBytes(TOKEN_KEY_BYTES);
}

/**
 * What is wrong with the layout of a file that claims the current version, or undefined.
 * Reading the schema parses all of it: a damaged schema throws SQLITE_CORRUPT here.
 */
export function schemaProblem(db: SqliteDatabase): string | undefined {
  db.prepare('SELECT type, name, sql FROM sqlite_master').all();
  if ((db.pragma('user_version', { simple: true }) as number) < SCHEMA_VERSION) return undefined;
  for (const probe of PROBES) {
    try {
      db.prepare(probe);
    } catch (error) {
      return `its tables do not match version ${SCHEMA_VERSION}: ${(error as Error).message}`;
    }
  }
  return undefined;
}

/**
 * Creates the tables, or moves an older file to this layout (a version 1 file's reports
 * oldest first). Immediate, and checked again inside: processes opening one new file at
 * once create it once, with one key.
 */
export function prepareSchema(db: SqliteDatabase): void {
  const current = () => db.pragma('user_version', { simple: true }) as number;
  if (current() >= SCHEMA_VERSION) return;
  db.transaction(() => {
    const version = current();
    if (version >= SCHEMA_VERSION) return;
    const existing = db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'reports'")
      .pluck()
      .get() as string | undefined;
    const version1 = existing !== undefined && /WITHOUT\s+ROWID/i.test(existing);
    if (version1) db.exec('ALTER TABLE reports RENAME TO reports_v1; DROP INDEX IF EXISTS reports_by_time;');
    db.exec(CREATE);
    if (existing !== undefined && !version1) addFactColumns(db);
    // Version 1 reports keep their trace inline, in `data`; reading them needs nothing more.
    if (version1)
      db.exec(
        `INSERT INTO reports (${V1_COLUMNS}) SELECT ${V1_COLUMNS} FROM reports_v1 ORDER BY time; DROP TABLE reports_v1;`,
      );
    // The reports of an older file are indexed later, on the write thread; a new file's B-trees are made now, empty.
    if (existing === undefined) db.exec(SEARCH_BTREES);
    else if (version < 4) startIndexing(db);
    startTail(db);
    db.prepare(CREATE_COUNTER).run(newTokenKey());
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/** The fact columns a file of version 2 to 5 lacks: each added at once, its reports reading null (0 for `asset`). */
function addFactColumns(db: SqliteDatabase): void {
  const present = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('reports') as string[]);
  for (const [name, type] of FACT_COLUMNS)
    if (!present.has(name)) db.exec(`ALTER TABLE reports ADD COLUMN ${name} ${type}`);
}
