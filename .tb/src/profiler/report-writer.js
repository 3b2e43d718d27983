import { randomUUID } from "node:crypto";
import { Backoff, PacedFailureLog } from "./failure-pacing.js";
import { decodeReport, encodeReport } from "./storage/report-encoding.js";
const PURGE_INTERVAL_MS = 1e3;
const PURGE_SLACK = 0.1;
const DROP_WARNING_INTERVAL_MS = 1e3;
const MAX_BATCH_BYTES = 512 * 1024;
const RETENTION_RETRY_FIRST_MS = 1e3;
const RETENTION_RETRY_MAX_MS = 6e4;
const WRITE_FAILED = "report store write failed";
const REPORTS_REFUSED = "report store refused reports";
const RETENTION_FAILED = "retention run failed";
function sizeOf(report) {
  return report.data.length + report.url.length;
}
function describe(error) {
  const code = error.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? `${code}: ${message}` : message;
}
class ReportWriter {
  constructor(store, options) {
    this.store = store;
    this.options = options;
    this.maxQueue = options.maxQueue ?? 2e4;
    this.batchSize = options.batchSize ?? 1e3;
    this.maxBatchBytes = options.maxBatchBytes ?? MAX_BATCH_BYTES;
    this.flushDelayMs = options.flushDelayMs ?? 20;
    this.retentionLeaseMs = options.retentionLeaseMs ?? PURGE_INTERVAL_MS;
    this.failures = new PacedFailureLog(options.log);
  }
  store;
  options;
  queue = [];
  queueBytes = 0;
  pendingByToken = /* @__PURE__ */ new Map();
  timer;
  idleTimer;
  writing = Promise.resolve();
  droppedCount = 0;
  writtenCount = 0;
  purgedCount = 0;
  skippedCount = 0;
  /** This writer, as the holder of the store's retention lease. */
  holder = randomUUID();
  retentionLeaseMs;
  /** Another process ran the retention lately: a store over its limit is theirs to purge until then. */
  heldElsewhereUntil = 0;
  /** Reports in the store as far as this writer knows; read again after each purge. */
  storedCount = 0;
  lastPurge = 0;
  dropsLogged = 0;
  lastDropWarning = 0;
  lastDropReason = "";
  dropWarningTimer;
  purgeTimer;
  failures;
  writeFailing = false;
  retentionBackoff = new Backoff(RETENTION_RETRY_FIRST_MS, RETENTION_RETRY_MAX_MS);
  closed = false;
  maxQueue;
  batchSize;
  maxBatchBytes;
  flushDelayMs;
  /** Applies the retention to what is already stored and starts the idle purge. */
  async open() {
    await this.enforceRetention();
    if (this.options.retention) {
      this.idleTimer = setInterval(() => {
        this.writing = this.writing.then(() => this.enforceRetention());
      }, this.options.idlePurgeMs ?? 6e4);
      this.idleTimer.unref();
    }
  }
  /** Reports dropped or rejected since start. */
  get dropped() {
    return this.droppedCount;
  }
  get written() {
    return this.writtenCount;
  }
  /** Reports deleted by retention since start. */
  get purged() {
    return this.purgedCount;
  }
  /** Retention runs skipped since start because another process held the lease. */
  get retentionSkipped() {
    return this.skippedCount;
  }
  get queued() {
    return this.pendingByToken.size;
  }
  enqueue(report) {
    if (this.closed || this.pendingByToken.size >= this.maxQueue) {
      this.discard(1, this.closed ? "the writer is closed" : `the write queue is full (${this.maxQueue} reports)`);
      return;
    }
    let encoded;
    try {
      encoded = encodeReport(report, this.options.redactor);
    } catch (error) {
      this.discard(1, `one could not be serialized (${error.message})`);
      return;
    }
    this.queue.push(encoded);
    this.queueBytes += sizeOf(encoded);
    this.pendingByToken.set(report.token, encoded);
    if (this.queue.length >= this.batchSize || this.queueBytes >= this.maxBatchBytes) this.flushSoon(0);
    else this.flushSoon(this.flushDelayMs);
  }
  /** A report accepted but not yet written, so it can be read at once. */
  pending(token) {
    const encoded = this.pendingByToken.get(token);
    return encoded && decodeReport(encoded, encoded.data, encoded.trace?.json);
  }
  /** Writes everything queued so far; resolves when it is stored. */
  flush() {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = void 0;
    }
    const batch = this.queue;
    this.queue = [];
    this.queueBytes = 0;
    if (batch.length > 0) this.writing = this.writing.then(() => this.writeBatches(batch));
    return this.writing;
  }
  async close() {
    this.closed = true;
    clearInterval(this.idleTimer);
    clearTimeout(this.purgeTimer);
    await this.flush();
    await this.enforceRetention(true);
    if (this.options.retention) await this.store.releaseRetention(this.holder).catch(() => void 0);
    clearTimeout(this.dropWarningTimer);
    if (this.droppedCount > this.dropsLogged) this.warnDropped();
    this.failures.flush();
  }
  flushSoon(delayMs) {
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), delayMs);
    this.timer.unref();
  }
  /** Consecutive runs of at most `batchSize` reports and `maxBatchBytes` bytes. */
  *batchesOf(reports) {
    let start = 0;
    let bytes = 0;
    for (let i = 0; i < reports.length; i++) {
      const size = sizeOf(reports[i]);
      if (i > start && (i - start >= this.batchSize || bytes + size > this.maxBatchBytes)) {
        yield reports.slice(start, i);
        start = i;
        bytes = 0;
      }
      bytes += size;
    }
    if (start < reports.length) yield reports.slice(start);
  }
  async writeBatches(reports) {
    for (const batch of this.batchesOf(reports)) {
      try {
        const { rejected, failed, deleted = 0 } = await this.store.write(batch, this.options.retention?.maxReports);
        this.writtenCount += batch.length - rejected.length - failed.length;
        this.storedCount += batch.length - rejected.length - failed.length - deleted;
        this.writeSucceeded();
        this.purgedCount += deleted;
        if (rejected.length > 0) this.discard(rejected.length, "their tokens were already stored");
        if (failed.length > 0) {
          this.failures.failed(REPORTS_REFUSED, `${failed.length} of ${batch.length}, the first: ${describe(failed[0].error)}`);
          this.discard(failed.length, "the store refused them");
        }
      } catch (error) {
        this.writeFailing = true;
        this.failures.failed(WRITE_FAILED, describe(error));
        this.discard(batch.length, "the store failed");
      } finally {
        for (const report of batch) this.pendingByToken.delete(report.token);
      }
    }
    const retention = this.options.retention;
    if (!retention) return;
    const over = this.storedCount - retention.maxReports;
    const now = Date.now();
    if (over > Math.floor(retention.maxReports * PURGE_SLACK) && now >= this.heldElsewhereUntil || now - this.lastPurge >= PURGE_INTERVAL_MS) {
      await this.enforceRetention();
    } else if (over > 0 && !this.purgeTimer && !this.closed) {
      this.purgeTimer = setTimeout(() => {
        this.purgeTimer = void 0;
        this.writing = this.writing.then(() => this.enforceRetention());
      }, PURGE_INTERVAL_MS).unref();
    }
  }
  /** Runs the retention, unless another process holds the lease; `final` runs it regardless. */
  async enforceRetention(final = false) {
    const retention = this.options.retention;
    if (!retention || !this.retentionBackoff.ready(Date.now())) return;
    try {
      const deleted = await this.store.purge(retention, final ? {} : { lease: { holder: this.holder, ms: this.retentionLeaseMs } });
      this.lastPurge = Date.now();
      if (deleted === void 0) {
        this.skippedCount++;
        this.heldElsewhereUntil = this.lastPurge + PURGE_INTERVAL_MS;
        this.retentionBackoff.succeeded();
        this.failures.succeeded(RETENTION_FAILED);
        return;
      }
      this.purgedCount += deleted;
      this.storedCount = await this.store.count();
      this.retentionBackoff.succeeded();
      this.failures.succeeded(RETENTION_FAILED);
    } catch (error) {
      const waitMs = this.retentionBackoff.failed(Date.now());
      this.failures.failed(RETENTION_FAILED, `${describe(error)} (next run in ${waitMs / 1e3} s)`);
    }
  }
  /** A write went through: after failures, the store works again, and retention need not wait out its backoff. */
  writeSucceeded() {
    if (!this.writeFailing) return;
    this.writeFailing = false;
    this.retentionBackoff.succeeded();
    this.failures.succeeded(WRITE_FAILED);
  }
  /** Counts `count` reports that will not be stored, and why; warns at most once a second. */
  discard(count, why) {
    this.droppedCount += count;
    this.lastDropReason = why;
    const sinceWarning = Date.now() - this.lastDropWarning;
    if (sinceWarning >= DROP_WARNING_INTERVAL_MS) this.warnDropped();
    else this.dropWarningTimer ??= setTimeout(() => this.warnDropped(), DROP_WARNING_INTERVAL_MS - sinceWarning).unref();
  }
  warnDropped() {
    clearTimeout(this.dropWarningTimer);
    this.dropWarningTimer = void 0;
    this.lastDropWarning = Date.now();
    this.dropsLogged = this.droppedCount;
    this.options.log.warn({ dropped: this.droppedCount }, `Debug reports dropped because ${this.lastDropReason}: ${this.droppedCount} since start`);
  }
}
export {
  ReportWriter
};
//# sourceMappingURL=report-writer.js.map
