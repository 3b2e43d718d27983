import { existsSync, renameSync } from "node:fs";
import Database from "better-sqlite3";
import { ReportStoreError } from "./report-store.js";
import { openDatabase } from "./sqlite-open.js";
import { schemaProblem } from "./sqlite-schema.js";
function isDamage(error) {
  return /^SQLITE_(NOTADB|CORRUPT)/.test(String(error.code));
}
function damageOf(file) {
  let db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const check = db.pragma("quick_check(1)", { simple: true });
    if (check !== "ok") return String(check).replace(/\s+/g, " ").trim();
    return schemaProblem(db);
  } catch (error) {
    if (isDamage(error)) return error.message;
    throw new ReportStoreError(file, `the report store ${file} cannot be opened: ${error.message}`, { cause: error });
  } finally {
    db?.close();
  }
}
function moveAside(file, reason) {
  const stamp = (/* @__PURE__ */ new Date()).toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  let movedTo = `${file}.damaged-${stamp}`;
  for (let n = 2; existsSync(movedTo); n++) movedTo = `${file}.damaged-${stamp}-${n}`;
  try {
    renameSync(file, movedTo);
    for (const suffix of ["-wal", "-shm"]) if (existsSync(file + suffix)) renameSync(file + suffix, movedTo + suffix);
  } catch (error) {
    throw new ReportStoreError(file, `the report store ${file} is damaged (${reason}) and could not be moved aside: ${error.message}`, { cause: error, damaged: true });
  }
  return movedTo;
}
function open(file) {
  try {
    return openDatabase(file);
  } catch (error) {
    throw new ReportStoreError(file, `the report store ${file} cannot be opened: ${error.message}`, { cause: error });
  }
}
function openCheckedDatabase(file, moveAsideDamaged) {
  const reason = existsSync(file) ? damageOf(file) : void 0;
  if (reason === void 0) return { db: open(file), movedAside: void 0 };
  if (!moveAsideDamaged) throw new ReportStoreError(file, `the report store ${file} is damaged (${reason})`, { damaged: true });
  const movedTo = moveAside(file, reason);
  return { db: open(file), movedAside: { file, movedTo, reason } };
}
export {
  openCheckedDatabase
};
//# sourceMappingURL=sqlite-check.js.map
