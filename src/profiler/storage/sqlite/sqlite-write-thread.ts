/**
 * The report store's write thread: it checks the file, owns the SQLite write connection and applies
 * the store's commands one at a time, in order. Long work (a purge, the search tail's indexing, an
 * older file's backfill) goes a chunk at a time between commands: a batch waits for one chunk at most.
 */
import type { SqliteDatabase } from './sqlite-driver.js';
import { parentPort, workerData } from 'node:worker_threads';
import { damageOf } from './sqlite-check.js';
import { freePagesStep, settleDiskUse } from './sqlite-disk.js';
import { FILE_DAMAGED, FILE_LOST, FileWatch, ThreadConnection } from './sqlite-faults.js';
import { openDatabase } from './sqlite-open.js';
import { OVERVIEW_TABLE, writeOverview } from './sqlite-overview.js';
import type { CountedMinute } from '../../overview/overview-recorder.js';
import type { OverviewUpkeep } from '../report-store.js';
import { prepareWrites, type LeaseRequest, type ReportRow, type SqliteWrites, type TraceRow } from './sqlite-writes.js';

export interface WriteThreadData {
  file: string;
  /** Tests only: SQLite refuses to grow the file past this many pages, as a full disk would (SQLITE_FULL). */
  maxPageCount?: number | undefined;
}

export type WriteCommand =
  | { id: number; kind: 'check'; wholeFile: boolean }
  | { id: number; kind: 'open' }
  | { id: number; kind: 'insert'; rows: ReportRow[]; traces: TraceRow[]; keep: number | undefined }
  | { id: number; kind: 'lease'; count: number }
  | { id: number; kind: 'count' }
  | { id: number; kind: 'purge'; before: number; keep: number; lease: LeaseRequest | undefined }
  | { id: number; kind: 'release-retention'; holder: string }
  | { id: number; kind: 'clear' }
  | { id: number; kind: 'overview'; holder: string; minutes: CountedMinute[]; upkeep: OverviewUpkeep }
  | { id: number; kind: 'close' };

/** A failure carries SQLite's code (`SQLITE_FULL`) when it has one, so that it can be told apart. */
export type WriteReply = { id: number; result: unknown } | { id: number; error: string; code: string | undefined };

const { file, maxPageCount } = workerData as WriteThreadData;
/** Opened by the first command, so that a failure to open comes back as an answer with its code. */
const connection = new ThreadConnection<{ db: SqliteDatabase; writes: SqliteWrites; watch: FileWatch }>();

/** Reports a purge deletes per transaction. */
const PURGE_CHUNK = 1000;

type PurgeCommand = Extract<WriteCommand, { kind: 'purge' }>;
/** Purges under way, the first one chunk by chunk, what each has deleted so far, and whether it is giving pages back. */
const purges: Array<{
  command: PurgeCommand;
  deleted: number;
  /** The newest report when it began: those written since are the next retention run's, so that it always ends. */
  upToId?: number;
  /** Every other turn of a purge's deletions goes to the tail, so that a long purge does not let it grow. */
  tailTurn?: boolean;
  catchingUp?: boolean;
  freeing?: boolean;
}> = [];
/** The search indexes of an older file are being filled (`sqlite-search-index.ts`). */
let filling = false;
/** The search tail is being indexed, a chunk at a time. */
let indexingTail = false;
/** Started by each batch: when it fires, no batch has come for that long and the tail is indexed. */
let idleTimer: NodeJS.Timeout | undefined;
let scheduled = false;

/** No batch for this long, and the tail is indexed. */
const TAIL_IDLE_MS = 50;
/** A tail this long is indexed without waiting for a pause: searches read it row by row. */
const TAIL_BOUND = 5000;

function open(): void {
  const db = openDatabase(file);
  try {
    if (maxPageCount !== undefined) db.pragma(`max_page_count = ${maxPageCount}`);
    db.exec(OVERVIEW_TABLE);
    connection.current = { db, writes: prepareWrites(db), watch: new FileWatch(file) };
  } catch (error) {
    db.close();
    throw error;
  }
  filling = true;
  // A tail left by a process that stopped before indexing it.
  waitForPause();
}

/** Indexes the tail once no batch has come for {@link TAIL_IDLE_MS}, or now when it has grown past its bound. */
function afterBatch(): void {
  if (indexingTail) return;
  const length = tailPending();
  if (length >= TAIL_BOUND) startIndexingTail();
  else if (length > 0) waitForPause();
}

function waitForPause(): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(startIndexingTail, TAIL_IDLE_MS);
  // A pending pause never keeps the thread alive.
  idleTimer.unref();
}

/** One chunk of the tail (or of deleted reports) into the trigram tables; what is left, 0 on a failure (tried again after the next batch). */
function tailStep(): number {
  return orElse((writes) => writes.search.indexTail(), 0);
}

/** Reports in the tail and deleted ones still in the trigram tables; 0 when that cannot be read now. */
function tailPending(): number {
  return orElse((writes) => writes.search.tailLength(), 0);
}

/** The newest report's id; undefined when it cannot be read now (read again at the purge's first chunk). */
function newestId(): number | undefined {
  return orElse((writes) => writes.newestId(), undefined);
}

/** Background work's reads and steps: a failure (a lost or damaged file is handed over by `guarded`) gives `fallback`. */
function orElse<T, F>(step: (writes: SqliteWrites) => T, fallback: F): T | F {
  try {
    return guarded((_, writes) => step(writes));
  } catch {
    return fallback;
  }
}

function startIndexingTail(): void {
  clearTimeout(idleTimer);
  indexingTail = true;
  schedule();
}

/** The next chunk of background work, after the commands that arrived meanwhile. */
function schedule(): void {
  if (scheduled || (purges.length === 0 && !filling && !indexingTail)) return;
  scheduled = true;
  setImmediate(nextChunk);
}

function nextChunk(): void {
  scheduled = false;
  const purge = purges[0];
  if (purge) {
    const { id, before, keep, lease } = purge.command;
    try {
      if (purge.catchingUp) {
        // The tail and the deleted reports go through the trigram tables before the WAL is emptied, so that the
        // file is left settled; down to less than a chunk, which a writer that never pauses may keep adding to.
        if (tailStep() < TAIL_BOUND) {
          purge.catchingUp = false;
          purge.freeing = true;
        }
      } else if (purge.freeing) {
        // Then the WAL is emptied, and the purge answered with its count whatever happens: the deletions are committed.
        if (!freeingPages() && connection.current)
          finish(purges.shift()!, settled(connection.current.db, purge.deleted));
        else if (!connection.current) finish(purges.shift()!, purge.deleted);
      } else if ((purge.tailTurn = !purge.tailTurn) && tailPending() >= TAIL_BOUND) {
        tailStep();
      } else {
        const upToId = (purge.upToId ??= newestId() ?? Number.MAX_SAFE_INTEGER);
        const deleted = guarded((_, writes) => writes.purgeChunk(before, keep, lease, PURGE_CHUNK, upToId));
        if (deleted === undefined) finish(purges.shift()!, undefined);
        else if (deleted === 0) purge.catchingUp = true;
        else purge.deleted += deleted;
        // The lease is taken (or found held) by the first chunk; the others go on under it.
        if (purge.command.lease) purge.command = { ...purge.command, lease: undefined };
      }
    } catch (error) {
      purges.shift();
      parentPort!.postMessage(failure(id, error));
    }
  } else if (indexingTail) {
    indexingTail = false;
    try {
      // Large chunks only: what is left, shorter than the bound, waits for the next pause.
      const left = guarded((_, writes) => writes.search.indexTail());
      if (left >= TAIL_BOUND) indexingTail = true;
      else if (left > 0) waitForPause();
    } catch {
      // Tried again after the next batch; meanwhile searches read the tail.
    }
  } else if (filling) {
    try {
      filling = guarded((_, writes) => writes.search.fillStep());
    } catch {
      // Tried again at the next open; meanwhile part-of searches scan.
      filling = false;
    }
  }
  schedule();
}

/** One step of giving pages back; false when done, or when it cannot be done now (a full disk: the next retention run tries again). */
function freeingPages(): boolean {
  try {
    return guarded((db) => freePagesStep(db));
  } catch {
    return false;
  }
}

function finish({ command }: { command: PurgeCommand }, result: number | undefined): void {
  parentPort!.postMessage({ id: command.id, result } satisfies WriteReply);
}

/** Gives disk space back after deletions. If that cannot happen now (a full disk), the next retention run tries again. */
function settled<T>(db: SqliteDatabase, deleted: T): T {
  try {
    settleDiskUse(db);
  } catch {
    // The deletions are committed either way: their count must go back to the caller.
  }
  return deleted;
}

function apply(command: WriteCommand): unknown {
  // What is wrong with the file, before it is opened: the check reads all of it, here rather than on the serving thread.
  if (command.kind === 'check') return damageOf(file, command.wholeFile) ?? null;
  if (command.kind === 'open') return void open();
  if (command.kind === 'close') {
    // Purges under way end here: what they deleted so far is committed.
    for (const { command, deleted } of purges.splice(0))
      parentPort!.postMessage({ id: command.id, result: deleted } satisfies WriteReply);
    filling = false;
    indexingTail = false;
    clearTimeout(idleTimer);
    // Closing the connection checkpoints the WAL.
    connection.close();
    return null;
  }
  if (command.kind === 'purge') {
    purges.push({ command, deleted: 0, upToId: newestId() });
    schedule();
    return PENDING;
  }
  const result = guarded((db, writes) => applyTo(db, writes, command));
  // The next batch reads its pages from the file again (the OS keeps them at hand), not from this
  // connection's cache, which would hide pages damaged on disk until a write failed elsewhere.
  if (command.kind === 'insert') {
    connection.current?.db.pragma('shrink_memory');
    afterBatch();
  }
  return result;
}

/**
 * Applies `write` to the open file; a file found lost or damaged after it is given up (`sqlite-faults.ts`):
 * this and every later command is answered FILE_LOST or FILE_DAMAGED, for the store to open the file again.
 */
function guarded<T>(write: (db: SqliteDatabase, writes: SqliteWrites) => T): T {
  const { db, writes, watch } = connection.use();
  let result: T;
  try {
    result = write(db, writes);
  } catch (error) {
    const lost = watch.lost();
    const damage = lost === undefined ? watch.damageAfter(db, error) : undefined;
    if (lost !== undefined) connection.give(FILE_LOST, lost);
    else if (damage !== undefined) connection.give(FILE_DAMAGED, damage);
    throw error;
  }
  // Checked after the commit: a batch that went to a file no longer at the path is not reported written.
  const lost = watch.lost();
  if (lost !== undefined) connection.give(FILE_LOST, lost);
  return result;
}

function applyTo(
  db: SqliteDatabase,
  writes: SqliteWrites,
  command: Exclude<WriteCommand, { kind: 'open' | 'close' | 'purge' }>,
): unknown {
  switch (command.kind) {
    case 'insert':
      return writes.insert(command.rows, command.traces, command.keep);
    case 'lease':
      return writes.leaseTokens(command.count);
    case 'count':
      return writes.count();
    case 'release-retention':
      return writes.releaseRetention(command.holder);
    case 'clear':
      return settled(db, writes.clear());
    case 'overview':
      return writeOverview(db, command.holder, command.minutes, command.upkeep) ?? null;
  }
}

/** A command answered later, by the chunks that carry it out. */
const PENDING = Symbol('pending');

/** A failure carries SQLite's code when it has one, or its cause's (the check wraps SQLite's error). */
function failure(id: number, error: unknown): WriteReply {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  return { id, error: (error as Error).message, code: typeof code === 'string' ? code : undefined };
}

parentPort!.on('message', (command: WriteCommand) => {
  try {
    const result = apply(command);
    if (result !== PENDING) parentPort!.postMessage({ id: command.id, result } satisfies WriteReply);
  } catch (error) {
    parentPort!.postMessage(failure(command.id, error));
  }
  // With its port closed the thread has nothing left to do and ends.
  if (command.kind === 'close') parentPort!.close();
});
