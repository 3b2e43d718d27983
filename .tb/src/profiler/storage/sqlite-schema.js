import { randomBytes } from "node:crypto";
import { TOKEN_KEY_BYTES } from "../../debug/token-permutation.js";
const SCHEMA_VERSION = 3;
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
  trace TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS reports_by_token ON reports (token);
CREATE INDEX IF NOT EXISTS reports_by_time ON reports (time);
CREATE INDEX IF NOT EXISTS reports_by_trace ON reports (trace) WHERE trace IS NOT NULL;
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
const V1_COLUMNS = "token, time, method, url, status, ip, duration, data";
const PROBES = [
  "SELECT id, token, time, method, url, status, ip, duration, data, trace FROM reports LIMIT 0",
  "SELECT hash, json FROM traces LIMIT 0",
  "SELECT id, next, key FROM token_counter LIMIT 0",
  "SELECT id, holder, expires FROM retention_lease LIMIT 0"
];
const CREATE_COUNTER = "INSERT INTO token_counter (id, next, key) VALUES (1, 0, ?) ON CONFLICT (id) DO NOTHING";
function newTokenKey() {
  return randomBytes(TOKEN_KEY_BYTES);
}
function schemaProblem(db) {
  db.prepare("SELECT type, name, sql FROM sqlite_master").all();
  if (db.pragma("user_version", { simple: true }) < SCHEMA_VERSION) return void 0;
  for (const probe of PROBES) {
    try {
      db.prepare(probe);
    } catch (error) {
      return `its tables do not match version ${SCHEMA_VERSION}: ${error.message}`;
    }
  }
  return void 0;
}
function prepareSchema(db) {
  const current = () => db.pragma("user_version", { simple: true });
  if (current() >= SCHEMA_VERSION) return;
  db.transaction(() => {
    if (current() >= SCHEMA_VERSION) return;
    const existing = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'reports'").pluck().get();
    const version1 = existing !== void 0 && /WITHOUT\s+ROWID/i.test(existing);
    if (version1) db.exec("ALTER TABLE reports RENAME TO reports_v1; DROP INDEX IF EXISTS reports_by_time;");
    db.exec(CREATE);
    if (version1) db.exec(`INSERT INTO reports (${V1_COLUMNS}) SELECT ${V1_COLUMNS} FROM reports_v1 ORDER BY time; DROP TABLE reports_v1;`);
    db.prepare(CREATE_COUNTER).run(newTokenKey());
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
export {
  CREATE_COUNTER,
  newTokenKey,
  prepareSchema,
  schemaProblem
};
//# sourceMappingURL=sqlite-schema.js.map
