/**
 * The stream the kernel's pino logger writes to in debug mode: every line goes on to the
 * real output, and lines of requests being profiled are also kept for their report.
 *
 * Fastify binds each request's logger to its id (`"reqId":"req-1f"`), so a line is matched
 * to its request by that field; lines written without it (the app logger) are not kept.
 * Nothing is parsed unless some request is being watched and the line names one.
 */
export interface LineSink {
  write(line: string): unknown;
}

const REQ_ID_FIELD = '"reqId":"';
/** A request that logs in a loop keeps its report small; the rest are counted. */
const MAX_LINES_PER_REQUEST = 200;

interface Watched {
  lines: string[];
  omitted: number;
}

export interface TappedLines {
  lines: string[];
  /** Lines written beyond the per-request limit. */
  omitted: number;
}

export class LogTap implements LineSink {
  private readonly watched = new Map<string, Watched>();

  constructor(private readonly output: LineSink = process.stdout) {}

  write(line: string): boolean {
    this.output.write(line);
    if (this.watched.size > 0) this.keep(line);
    return true;
  }

  /** Starts keeping the lines of request `id`. */
  watch(id: string): void {
    this.watched.set(id, { lines: [], omitted: 0 });
  }

  /** Stops watching request `id` and hands over its lines. */
  take(id: string): TappedLines {
    const entry = this.watched.get(id);
    this.watched.delete(id);
    return entry ?? { lines: [], omitted: 0 };
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
    if (at === -1) return;
    const start = at + REQ_ID_FIELD.length;
    const entry = this.watched.get(line.slice(start, line.indexOf('"', start)));
    if (!entry) return;
    if (entry.lines.length < MAX_LINES_PER_REQUEST) entry.lines.push(line);
    else entry.omitted++;
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
