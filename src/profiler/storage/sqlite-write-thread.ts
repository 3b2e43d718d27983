/**
 * The report store's write thread: owns the SQLite write connection and applies the
 * batches, token leases, purges and clears the store sends it, one at a time, in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { settleDiskUse } from './sqlite-disk.js';
import { openDatabase } from './sqlite-open.js';
import { prepareWrites, type LeaseRequest, type ReportRow, type TraceRow } from './sqlite-writes.js';

export interface WriteThreadData {
  file: string;
  /** Tests only: SQLite refuses to grow the file past this many pages, as a full disk would (SQLITE_FULL). */
  maxPageCount?: number | undefined;
}

export type WriteCommand =
  | { id: number; kind: 'insert'; rows: ReportRow[]; traces: TraceRow[]; keep: number | undefined }
  | { id: number; kind: 'lease'; count: number }
  | { id: number; kind: 'purge'; before: number; keep: number; lease: LeaseRequest | undefined }
  | { id: number; kind: 'release-retention'; holder: string }
  | { id: number; kind: 'clear' }
  | { id: number; kind: 'close' };

/** A failure carries SQLite's code (`SQLITE_FULL`) when it has one, so that it can be told apart. */
export type WriteReply = { id: number; result: unknown } | { id: number; error: string; code: string | undefined };

const { file, maxPageCount } = workerData as WriteThreadData;
const db = openDatabase(file);
if (maxPageCount !== undefined) db.pragma(`max_page_count = ${maxPageCount}`);
const writes = prepareWrites(db);

/** Gives disk space back after deletions. If that cannot happen now (a full disk), the next retention run tries again. */
function settled<T>(deleted: T): T {
  try {
    settleDiskUse(db);
  } catch {
    // The deletions are committed either way: their count must go back to the caller.
  }
  return deleted;
}

function apply(command: WriteCommand): unknown {
  switch (command.kind) {
    case 'insert':
      return writes.insert(command.rows, command.traces, command.keep);
    case 'lease':
      return writes.leaseTokens(command.count);
    case 'purge': {
      const deleted = writes.purge(command.before, command.keep, command.lease);
      // Skipped (another process has the retention): nothing was deleted, nothing to give back.
      return deleted === undefined ? deleted : settled(deleted);
    }
    case 'release-retention':
      return writes.releaseRetention(command.holder);
    case 'clear':
      return settled(writes.clear());
    case 'close':
      // Closing the connection checkpoints the WAL.
      db.close();
      return null;
  }
}

parentPort!.on('message', (command: WriteCommand) => {
  try {
    const result = apply(command);
    parentPort!.postMessage({ id: command.id, result } satisfies WriteReply);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    parentPort!.postMessage({ id: command.id, error: (error as Error).message, code: typeof code === 'string' ? code : undefined } satisfies WriteReply);
  }
  // With its port closed the thread has nothing left to do and ends.
  if (command.kind === 'close') parentPort!.close();
});
