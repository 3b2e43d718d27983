/**
 * The embedded report store: one SQLite file (WAL mode), by default under VAR_DIR; no server to run,
 * and several processes may write the same file. Writes go to one thread (`sqlite-write-thread.ts`),
 * reads to another (`sqlite-read-thread.ts`), so neither holds up the thread that answers requests;
 * a full disk, or a file lost or damaged, is recovered from without a restart (`sqlite-faults.ts`).
 */
import type { MinuteCounts } from '../../overview/minute-counts.js';
import type { CountedMinute } from '../../overview/overview-recorder.js';
import { existsSync, statSync } from 'node:fs';
import type {
  ExceptionGroupQuery,
  ExceptionGroupSummary,
  Report,
  ReportSearch,
  SearchResult,
} from '../../model/report.js';
import { decodeReport, type EncodedReport } from '../../model/report-encoding.js';
import { Backoff } from '../../../utils/backoff.js';
import {
  ReportStoreError,
  ReportStoreUnavailableError,
  type OverviewUpkeep,
  type PurgeOptions,
  type ReportStore,
  type Retention,
  type WriteOutcome,
} from '../report-store.js';
import { moveAside, type MovedAside } from './sqlite-check.js';
import { FILE_DAMAGED, FILE_LOST, fileIdentity, isNoRoom, sameFile, type FileIdentity } from './sqlite-faults.js';
import type { ReadCommand, ReportRow as StoredRow } from './sqlite-read-thread.js';
import { ReadThread, WriteThread, type WithoutId } from './sqlite-thread-client.js';
import type { WriteCommand } from './sqlite-write-thread.js';
import type { ReportRow, RowsOutcome, TraceRow } from './sqlite-writes.js';

export interface SqliteStoreOptions {
  /**
   * Called when the file was found damaged at open, after it was moved aside and a new store
   * created. Without it a damaged file is left as it is and `open()` rejects with a
   * `ReportStoreError` naming it.
   */
  onDamaged?: (moved: MovedAside) => void;
  /**
   * The service's warnings about its store. With it, a disk with no room does not fail `open()`:
   * the store says so here, every call rejects with a {@link ReportStoreUnavailableError}
   * meanwhile, and it is opened again, after 1 s, 2 s... (at most every 10 s), at the next
   * call. A file deleted or replaced while open is said here too, and opened again.
   */
  notify?: (message: string) => void;
  /**
   * The largest file read whole by SQLite's `quick_check` before the store opens (default
   * 256 MiB). A larger one has its header and schema checked; damage in its other pages is
   * found when a read or write reaches them, as while running.
   */
  wholeCheckUpTo?: number;
  /** Tests only: the write connection refuses to grow the file past this many pages, as a full disk would. */
  maxPageCount?: number;
}

/** The threads of an open store. */
interface Opened {
  writer: WriteThread;
  reader: ReadThread;
  /** The file they opened, to tell it from one put at the same path since. */
  identity: FileIdentity | undefined;
}

const WHOLE_CHECK_UP_TO = 256 * 1024 * 1024;
const REOPEN_FIRST_MS = 1000;
const REOPEN_MAX_MS = 10_000;

export class SqliteReportStore implements ReportStore {
  private opened: Opened | undefined;
  /** No room on the disk: why, and when to try opening again. */
  private unwritable: { reason: string; backoff: Backoff } | undefined;
  /** An open or a recovery under way, which the calls meanwhile wait for. */
  private opening: Promise<void> | undefined;
  /** The last file found sound, so that opening it again after a full disk does not read it whole. */
  private sound: FileIdentity | undefined;

  /** Touches nothing: the file is checked and opened by {@link open}. */
  constructor(
    readonly file: string,
    private readonly options: SqliteStoreOptions = {},
  ) {}

  /** A lease waits behind the batch the write thread is writing (see ReportStore). */
  readonly leaseWaitMs = 1000;

  get location(): string {
    return this.file;
  }

  async exists(): Promise<boolean> {
    return existsSync(this.file);
  }

  async open(): Promise<void> {
    if (this.opened || this.unwritable) return;
    await (this.opening ??= this.openOrWait().finally(() => (this.opening = undefined)));
  }

  /** Opens the store; with `notify`, a disk with no room leaves it unwritable instead, to be opened again later. */
  private async openOrWait(): Promise<void> {
    try {
      this.opened = await this.openNow();
    } catch (error) {
      if (!this.options.notify || !isNoRoom(error)) throw error;
      const reason = describe(error);
      this.unwritable = { reason, backoff: new Backoff(REOPEN_FIRST_MS, REOPEN_MAX_MS) };
      this.unwritable.backoff.failed(Date.now());
      this.options.notify(
        `The report store ${this.file} cannot be written (${reason}): the service runs without it, and reports are dropped and counted until it can; it is opened again as space comes back`,
      );
    }
  }

  private async openNow(): Promise<Opened> {
    const writer = new WriteThread({ file: this.file, maxPageCount: this.options.maxPageCount });
    try {
      await this.check(writer);
      await writer.send({ kind: 'open' });
    } catch (error) {
      await writer.close();
      if (error instanceof ReportStoreError) throw error;
      throw new ReportStoreError(
        this.file,
        `the report store ${this.file} cannot be opened: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const identity = fileIdentity(this.file);
    this.sound = identity;
    return { writer, reader: new ReadThread({ file: this.file }), identity };
  }

  /** Checks the file on the write thread (the check reads all of it); a damaged one is moved aside, or named. */
  private async check(writer: WriteThread): Promise<void> {
    // A file checked already (opened again after a full disk) is not read whole again.
    if (!existsSync(this.file) || sameFile(fileIdentity(this.file), this.sound)) return;
    // Read whole, a store of millions of reports would hold the start for minutes.
    const wholeFile = statSync(this.file).size <= (this.options.wholeCheckUpTo ?? WHOLE_CHECK_UP_TO);
    let reason: string | null;
    try {
      reason = await writer.send<string | null>({ kind: 'check', wholeFile });
    } catch (error) {
      throw new ReportStoreError(this.file, (error as Error).message, { cause: error });
    }
    if (reason === null) return;
    if (!this.options.onDamaged)
      throw new ReportStoreError(this.file, `the report store ${this.file} is damaged (${reason})`, { damaged: true });
    this.options.onDamaged({ file: this.file, movedTo: moveAside(this.file, reason), reason });
  }

  /**
   * The open store, once any open or recovery under way is done. An unwritable store is
   * opened again when its backoff allows, and rejects with a `ReportStoreUnavailableError` meanwhile.
   */
  private async ready(): Promise<Opened> {
    if (this.opening) await this.opening.catch(() => undefined);
    if (this.opened) return this.opened;
    const unwritable = this.unwritable;
    if (!unwritable) throw new ReportStoreError(this.file, `the report store ${this.file} is not open`);
    if (unwritable.backoff.ready(Date.now())) {
      this.opening ??= this.reopen(unwritable).finally(() => (this.opening = undefined));
      await this.opening;
      if (this.opened) return this.opened;
    }
    throw new ReportStoreUnavailableError(this.file, this.unwritable?.reason ?? unwritable.reason);
  }

  private async reopen(unwritable: NonNullable<SqliteReportStore['unwritable']>): Promise<void> {
    try {
      this.opened = await this.openNow();
      this.unwritable = undefined;
      this.options.notify?.(`The report store ${this.file} can be written again: reports are stored again`);
    } catch (error) {
      if (!isNoRoom(error)) throw error;
      unwritable.reason = describe(error);
      unwritable.backoff.failed(Date.now());
    }
  }

  /**
   * Sends a command to the write thread. When the thread finds the file lost or damaged, the
   * store opens the file at its path again (a damaged one moved aside first) and sends the
   * command once more: a batch committed to a file no longer there is written to the new one.
   */
  private command<T>(command: WithoutId<WriteCommand>): Promise<T> {
    return this.sent((opened) => opened.writer.send<T>(command));
  }

  /** Sends a read to the read thread, which recovers from a lost or damaged file as a write does, and reads the new store. */
  private reading<T>(command: WithoutId<ReadCommand>): Promise<T> {
    return this.sent((opened) => opened.reader.send<T>(command));
  }

  private async sent<T>(send: (opened: Opened) => Promise<T>): Promise<T> {
    const opened = await this.ready();
    try {
      return await send(opened);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== FILE_LOST && code !== FILE_DAMAGED) throw error;
      if (this.opened === opened)
        this.opening ??= this.recover(opened, code, (error as Error).message).finally(() => (this.opening = undefined));
      return send(await this.ready());
    }
  }

  /** Gives up the connections to a lost or damaged file, moves a damaged one aside, and opens the store again. */
  private async recover(lost: Opened, code: string, reason: string): Promise<void> {
    this.opened = undefined;
    await closeThreads(lost);
    if (code === FILE_DAMAGED) {
      if (!this.options.onDamaged)
        throw new ReportStoreError(this.file, `the report store ${this.file} is damaged (${reason})`, {
          damaged: true,
        });
      // Another process may have moved it aside and created a new one already: that one is left alone.
      if (sameFile(fileIdentity(this.file), lost.identity))
        this.options.onDamaged({ file: this.file, movedTo: moveAside(this.file, reason), reason });
    } else {
      this.options.notify?.(
        `The report store ${this.file} was lost while in use (${reason}): a new store is opened at that path; the reports of the old file are gone`,
      );
    }
    await this.openOrWait();
  }

  async write(reports: readonly EncodedReport[], keep?: number): Promise<WriteOutcome> {
    const rows: ReportRow[] = [];
    const traces = new Map<string, TraceRow>();
    for (const report of reports) {
      const { token, time, method, url, status, ip, duration, data, trace } = report;
      if (trace) traces.set(trace.hash, trace);
      const { route, exception, fingerprint, statements, calls, asset } = report;
      rows.push([
        ...([token, time, method, url, status, ip, duration, data, trace?.hash ?? null] as const),
        ...([route, exception, fingerprint, statements, calls, asset ? 1 : 0] as const),
      ]);
    }
    const outcome = await this.command<RowsOutcome>({ kind: 'insert', rows, traces: [...traces.values()], keep });
    const failed = outcome.failed.map(({ token, message }) => ({ token, error: new Error(message) }));
    return keep === undefined
      ? { rejected: outcome.rejected, failed }
      : { rejected: outcome.rejected, failed, deleted: outcome.deleted };
  }

  async read(token: string): Promise<Report | undefined> {
    const row = await this.reading<StoredRow | undefined>({ kind: 'read', token });
    return row && decodeReport(row, row.data, row.traceJson);
  }

  async search(filters: ReportSearch): Promise<SearchResult> {
    return this.reading<SearchResult>({ kind: 'search', filters });
  }

  async exceptionGroups(query: ExceptionGroupQuery): Promise<ExceptionGroupSummary[]> {
    return this.reading<ExceptionGroupSummary[]>({ kind: 'exception-groups', query });
  }

  /** From the write thread, which follows the count as it writes: a count of millions of rows is not read again per page. */
  async count(): Promise<number> {
    return this.command<number>({ kind: 'count' });
  }

  async writeOverview(holder: string, minutes: readonly CountedMinute[], upkeep: OverviewUpkeep): Promise<void> {
    await this.command<null>({ kind: 'overview', holder, minutes: [...minutes], upkeep });
  }

  /** Added up on the read thread: a week of minutes is parsed there, not on the serving one. */
  async readOverview(from: number): Promise<MinuteCounts> {
    return this.reading<MinuteCounts>({ kind: 'overview', from });
  }

  async leaseTokens(count: number): Promise<string[]> {
    return this.command<string[]>({ kind: 'lease', count });
  }

  async purge(
    { maxReports, maxAgeMs }: Retention,
    { now = Date.now(), lease }: PurgeOptions = {},
  ): Promise<number | undefined> {
    const request = lease && { holder: lease.holder, ms: lease.ms, now };
    const deleted = await this.command<number | null | undefined>({
      kind: 'purge',
      before: now - maxAgeMs,
      keep: maxReports,
      lease: request,
    });
    // Structured cloning keeps undefined; null is taken the same way, to be safe.
    return deleted ?? undefined;
  }

  async releaseRetention(holder: string): Promise<void> {
    await this.command({ kind: 'release-retention', holder });
  }

  async clear(): Promise<number> {
    return this.command<number>({ kind: 'clear' });
  }

  async close(): Promise<void> {
    await this.opening?.catch(() => undefined);
    this.unwritable = undefined;
    const opened = this.opened;
    if (!opened) return;
    this.opened = undefined;
    await closeThreads(opened);
  }
}

/** The reader first: the writer's connection, closed last, checkpoints the WAL and removes it. */
async function closeThreads({ reader, writer }: Opened): Promise<void> {
  await reader.close();
  await writer.close();
}

/** SQLite's code first (`SQLITE_FULL: database or disk is full`), or Node's (`EFBIG: file too large`). */
function describe(error: unknown): string {
  const cause = error instanceof ReportStoreError && error.cause instanceof Error ? error.cause : error;
  const code = (cause as { code?: unknown }).code;
  const message = cause instanceof Error ? cause.message : String(cause);
  return typeof code === 'string' && !message.startsWith(code) ? `${code}: ${message}` : message;
}
