/**
 * The stream the kernel's pino logger writes to in debug mode: every line goes on to the
 * real output, and lines written while a request is profiled are also kept for its report.
 */
import { currentScope, type ScopeLines } from '../../http/request-scope.js';
import { cutString } from '../model/report-bounds.js';

export interface LineSink {
  write(line: string): unknown;
}

const REQ_ID_FIELD = '"reqId":"';
/** A request that logs in a loop keeps its report small; the rest are counted. */
const MAX_LINES_PER_REQUEST = 200;

export interface TappedLine {
  /** Who wrote it: `request` (the request's logger), `app` (the app logger) or `console.<method>`. */
  logger: string;
  /** A pino line as JSON, or the console's text. */
  text: string;
  /** Console lines only (pino lines carry theirs). */
  level?: string | undefined;
  time?: number | undefined;
}

interface TappedLines {
  lines: TappedLine[];
  /** Lines written beyond the per-request limit. */
  omitted: number;
}

/** One request's lines, bounded; once handed over it keeps nothing more. */
class RequestLines implements ScopeLines, TappedLines {
  lines: TappedLine[] = [];
  omitted = 0;
  taken = false;
  /** What the console's arguments are kept as (see {@link LogTap.watch}). */
  redact: ((value: unknown) => unknown) | undefined = undefined;

  add(logger: string, text: string, level?: string): void {
    if (this.taken) return;
    if (this.lines.length >= MAX_LINES_PER_REQUEST) {
      this.omitted++;
      return;
    }
    // A console line is not JSON and has no time of its own; both are given here.
    this.lines.push(
      level === undefined ? { logger, text } : { logger, text: cutString(text), level, time: Date.now() },
    );
  }
}

/**
 * Lines kept for requests nobody said they watch (see {@link LogTap.keepEveryRequest}): past
 * this, the oldest request's are let go. Most are the lines of requests still running; the
 * rest, lines a request wrote after its report was decided, would otherwise stay for good.
 */
const MAX_UNANNOUNCED_REQUESTS = 1000;

/**
 * Fastify binds each request's logger to its id (`"reqId":"req-1f"`), so its lines are
 * matched to the request by that field. Lines without it (the app logger, `app.log`) and
 * the console's (see `console-tap.ts`) are filed under the request whose code wrote them,
 * found through its scope (`debug/request-scope.ts`). Nothing is parsed here.
 */
export class LogTap implements LineSink {
  private readonly watched = new Map<string, RequestLines>();
  /** Production's profiler: lines are kept for every request id, from its first line. */
  private everyRequest = false;

  constructor(private readonly output: LineSink = process.stdout) {}

  write(line: string): boolean {
    this.output.write(line);
    if (this.everyRequest || this.watched.size > 0) this.keep(line);
    return true;
  }

  /**
   * Keeps the lines of every request, without {@link watch}: production follows every
   * request and keeps few reports, and a request's entry is made by its first line, not
   * at its arrival, since most requests write none.
   */
  keepEveryRequest(on: boolean): void {
    this.everyRequest = on;
    if (!on) this.watched.clear();
  }

  /**
   * Starts keeping the lines of request `id` (those it has written, if they were kept); the
   * returned sink takes the lines its code writes. `redact`: what the console's arguments
   * are kept as, before they are formatted.
   */
  watch(id: string, redact?: (value: unknown) => unknown): ScopeLines {
    let entry = this.watched.get(id);
    if (entry === undefined) this.watched.set(id, (entry = new RequestLines()));
    entry.redact = redact;
    return entry;
  }

  /** Stops watching request `id` and hands over its lines. */
  take(id: string): TappedLines {
    const entry = this.watched.get(id);
    this.watched.delete(id);
    if (!entry) return { lines: [], omitted: 0 };
    entry.taken = true;
    return { lines: entry.lines, omitted: entry.omitted };
  }

  /** Stops watching request `id`, keeping nothing of it. */
  forget(id: string): void {
    if (this.watched.size > 0) this.watched.delete(id);
  }

  /** Lines request `id` has written so far (kept or beyond the limit). */
  count(id: string): number {
    const entry = this.watched.get(id);
    return entry ? entry.lines.length + entry.omitted : 0;
  }

  get watching(): number {
    return this.watched.size;
  }

  private keep(line: string): void {
    const at = line.indexOf(REQ_ID_FIELD);
    if (at === -1) {
      currentScope()?.lines?.add('app', line);
      return;
    }
    const start = at + REQ_ID_FIELD.length;
    const id = line.slice(start, line.indexOf('"', start));
    const entry = this.watched.get(id);
    if (entry !== undefined) entry.add('request', line);
    else if (this.everyRequest) this.unannounced(id).add('request', line);
  }

  /** The entry of a request whose first line this is (see {@link keepEveryRequest}). */
  private unannounced(id: string): RequestLines {
    if (this.watched.size >= MAX_UNANNOUNCED_REQUESTS) this.watched.delete(this.watched.keys().next().value!);
    const entry = new RequestLines();
    this.watched.set(id, entry);
    return entry;
  }
}

/** The tap behind each logger built to write through one (`vigilFastifyOptions`). */
const tapsByLogger = new WeakMap<object, LogTap>();

/** Records that `logger` writes through `tap`, so that the plugin finds the tap from the instance's logger. */
export function linkLogTap(logger: object, tap: LogTap): void {
  tapsByLogger.set(logger, tap);
}

/**
 * The tap `logger` writes through; undefined for a logger the application built itself.
 * Fastify logs through a child of the logger it is given, and a pino child inherits from
 * its parent: the chain leads to the linked logger.
 */
export function logTapOf(logger: object): LogTap | undefined {
  for (let link: object | null = logger; link !== null; link = Object.getPrototypeOf(link) as object | null) {
    const tap = tapsByLogger.get(link);
    if (tap) return tap;
  }
  return undefined;
}
