import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { boundDiskUse } from "./sqlite-disk.js";
import { prepareSchema } from "./sqlite-schema.js";
function openDatabase(file) {
  createPrivately(file);
  const db = new Database(file);
  db.pragma("auto_vacuum = INCREMENTAL");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  boundDiskUse(db);
  prepareSchema(db);
  return db;
}
function createPrivately(file) {
  mkdirSync(dirname(file), { recursive: true, mode: 448 });
  let fd;
  try {
    fd = openSync(file, "wx", 384);
  } catch (error) {
    if (error.code !== "EEXIST") throw error;
    for (const own of [file, `${file}-wal`, `${file}-shm`]) chmodQuietly(own);
    return;
  }
  try {
    fchmodSync(fd, 384);
  } finally {
    closeSync(fd);
  }
}
function chmodQuietly(path) {
  try {
    chmodSync(path, 384);
  } catch {
  }
}
export {
  openDatabase
};
//# sourceMappingURL=sqlite-open.js.map
