import { existsSync } from "node:fs";
import { extname } from "node:path";
import { Worker } from "node:worker_threads";
import { decodeReport } from "./report-encoding.js";
import { ReportStoreError } from "./report-store.js";
import { openCheckedDatabase } from "./sqlite-check.js";
const SUMMARY_COLUMNS = "token, time, method, url, status, ip, duration";
const WRITE_THREAD = new URL(`./sqlite-write-thread${extname(import.meta.url)}`, import.meta.url);
const WRITE_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 };
function startWriteThread(workerData) {
  if (!WRITE_THREAD.pathname.endsWith(".ts")) return new Worker(WRITE_THREAD, { workerData, resourceLimits: WRITE_THREAD_LIMITS });
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(WRITE_THREAD.href)}, ${JSON.stringify(WRITE_THREAD.href)}))`;
  return new Worker(boot, { eval: true, workerData, resourceLimits: WRITE_THREAD_LIMITS });
}
class WriteThread {
  worker;
  waiting = /* @__PURE__ */ new Map();
  nextId = 1;
  failure;
  exited;
  constructor(data) {
    this.worker = startWriteThread(data);
    this.worker.on("message", (reply) => {
      const caller = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if ("error" in reply) caller?.reject(Object.assign(new Error(reply.error), { code: reply.code }));
      else caller?.resolve(reply.result);
    });
    this.worker.on("error", (error) => this.fail(error));
    this.exited = new Promise((resolve) => this.worker.once("exit", () => {
      this.fail(new Error("The report store's write thread has stopped"));
      resolve();
    }));
  }
  send(command) {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...command, id });
    });
  }
  async close() {
    await this.send({ kind: "close" }).catch(() => void 0);
    await this.exited;
  }
  fail(error) {
    this.failure ??= error;
    for (const caller of this.waiting.values()) caller.reject(error);
    this.waiting.clear();
  }
}
class SqliteReportStore {
  /** Touches nothing: the file is checked and opened by {@link open}. */
  constructor(file, options = {}) {
    this.file = file;
    this.options = options;
  }
  file;
  options;
  opened;
  get location() {
    return this.file;
  }
  async exists() {
    return existsSync(this.file);
  }
  async open() {
    if (this.opened) return;
    const { db, movedAside } = openCheckedDatabase(this.file, this.options.onDamaged !== void 0);
    if (movedAside) this.options.onDamaged(movedAside);
    const readRow = db.prepare(
      `SELECT ${SUMMARY_COLUMNS}, data, traces.json AS traceJson FROM reports LEFT JOIN traces ON traces.hash = reports.trace WHERE token = ?`
    );
    this.opened = { db, readRow, writer: new WriteThread({ file: this.file, maxPageCount: this.options.maxPageCount }) };
  }
  async write(reports, keep) {
    const rows = [];
    const traces = /* @__PURE__ */ new Map();
    for (const { token, time, method, url, status, ip, duration, data, trace } of reports) {
      if (trace) traces.set(trace.hash, trace);
      rows.push([token, time, method, url, status, ip, duration, data, trace?.hash ?? null]);
    }
    const outcome = await this.use().writer.send({ kind: "insert", rows, traces: [...traces.values()], keep });
    const failed = outcome.failed.map(({ token, message }) => ({ token, error: new Error(message) }));
    return keep === void 0 ? { rejected: outcome.rejected, failed } : { rejected: outcome.rejected, failed, deleted: outcome.deleted };
  }
  async read(token) {
    const row = this.use().readRow.get(token);
    return row && decodeReport(row, row.data, row.traceJson);
  }
  async search(filters) {
    const where = [];
    const values = [];
    if (filters.ip) where.push("instr(ip, ?) > 0"), values.push(filters.ip);
    if (filters.method) where.push("method = ?"), values.push(filters.method.toUpperCase());
    if (filters.statusCode !== void 0) where.push("status = ?"), values.push(filters.statusCode);
    if (filters.url) where.push("instr(url, ?) > 0"), values.push(filters.url);
    if (filters.token) where.push("substr(token, 1, ?) = ?"), values.push(filters.token.length, filters.token.toLowerCase());
    if (filters.start !== void 0) where.push("time >= ?"), values.push(filters.start);
    if (filters.end !== void 0) where.push("time <= ?"), values.push(filters.end);
    const sql = `SELECT ${SUMMARY_COLUMNS} FROM reports ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY time DESC, id DESC LIMIT ?`;
    return this.use().db.prepare(sql).all(...values, filters.limit ?? 100);
  }
  async count() {
    return this.use().db.prepare("SELECT count(*) FROM reports").pluck().get();
  }
  async leaseTokens(count) {
    return this.use().writer.send({ kind: "lease", count });
  }
  async purge({ maxReports, maxAgeMs }, { now = Date.now(), lease } = {}) {
    const request = lease && { holder: lease.holder, ms: lease.ms, now };
    const deleted = await this.use().writer.send({ kind: "purge", before: now - maxAgeMs, keep: maxReports, lease: request });
    return deleted ?? void 0;
  }
  async releaseRetention(holder) {
    await this.use().writer.send({ kind: "release-retention", holder });
  }
  async clear() {
    return this.use().writer.send({ kind: "clear" });
  }
  async close() {
    const opened = this.opened;
    if (!opened) return;
    this.opened = void 0;
    await opened.writer.close();
    opened.db.close();
  }
  use() {
    if (!this.opened) throw new ReportStoreError(this.file, `the report store ${this.file} is not open`);
    return this.opened;
  }
}
export {
  SqliteReportStore
};
//# sourceMappingURL=sqlite-store.js.map
