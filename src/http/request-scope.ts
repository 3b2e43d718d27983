/**
 * The profiled request whose code is running, wherever it runs: one AsyncLocalStorage store per
 * request, entered by the profiler's first hook. The console and the app logger file their lines
 * under it, and {@link span} records the application's own steps in it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Channel } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

/** Spans kept per request; later ones are counted, not kept. */
export const MAX_SPANS = 256;
/** Longest span name kept. */
const MAX_SPAN_NAME = 200;

/** A span's name as a report keeps it: a string, cut to a bound. */
export function spanName(name: unknown): string {
  return String(name).slice(0, MAX_SPAN_NAME);
}

export interface SpanRecord {
  name: string;
  /** Milliseconds from the request's arrival. */
  start: number;
  /** Milliseconds; null while the span still runs (its report was made before it ended). */
  duration: number | null;
  /** 0 for a span the handler opened, 1 for one opened inside it, and so on. */
  depth: number;
  /** It failed: its function threw or its promise was rejected, or its library set an error status. */
  error: boolean;
}

/** Where a request's log lines go while it runs (the log tap's entry for it). */
export interface ScopeLines {
  add(logger: string, text: string, level?: string): void;
  /** What a value printed to the console is kept as (its secrets replaced), before it is formatted. */
  redact?(value: unknown): unknown;
}

/** The spans of a request that has none, which most have: shared, never written. */
const NO_SPANS: readonly SpanRecord[] = Object.freeze([]);

export class RequestScope {
  /** Made by the first span (see {@link spans}). */
  private ownSpans: SpanRecord[] | undefined;
  spansOmitted = 0;
  /** Places taken on the waterfall, by either kind of span (see {@link takeSpanPlace}). */
  private spanPlaces = 0;
  /** Set by the logs collector when the request starts; dropped when its report is made. */
  lines: ScopeLines | undefined;
  /**
   * What the profiler records of the application's calls (`profiler/activity`), when it
   * does: kept here, where every message of a call looks first, not in a map beside it.
   */
  activity: object | undefined;
  /**
   * What `profiler/activity` makes that record with, set as the request starts; the record
   * itself is made when the request's first statement, call or span asks, since most make none.
   */
  activitySites: object | undefined;
  private closed = false;

  /** `origin`: the request's arrival, in `performance.now()` milliseconds; `request`: whose scope it is. */
  constructor(
    readonly origin: number,
    readonly request?: object,
  ) {}

  /**
   * Ends recording: what the request's code does later (a promise it left running) is
   * not kept, and the scope lets go of what it held, since timers may keep it alive.
   */
  close(): void {
    this.closed = true;
    this.lines = undefined;
    this.activity = undefined;
    this.activitySites = undefined;
    this.ownSpans = undefined;
  }

  /** The application's own spans (`span()`), in the order they began; those of its libraries are kept by the profiler. */
  get spans(): readonly SpanRecord[] {
    return this.ownSpans ?? NO_SPANS;
  }

  addSpan(record: SpanRecord): void {
    (this.ownSpans ??= []).push(record);
  }

  /** Takes one of the request's {@link MAX_SPANS} places on the waterfall; false (and counted) past them. */
  takeSpanPlace(): boolean {
    if (this.spanPlaces >= MAX_SPANS) {
      this.spansOmitted++;
      return false;
    }
    this.spanPlaces++;
    return true;
  }

  get open(): boolean {
    return !this.closed;
  }
}

/** A profiled request's code running, inside `depth` levels of its `span()`s. */
export interface ScopeFrame {
  scope: RequestScope;
  depth: number;
}

const current = new AsyncLocalStorage<ScopeFrame>();

/**
 * Whether the process's code has asked for the request it runs in: a statement, a call or
 * a span, inside a request or not (at boot, a pool's first connection). Until it has, a
 * production request need not enter its scope: its own logger's lines are matched by its
 * id, and nothing else would be filed there. Entering costs every request from then on
 * (on Node 20 and 22, AsyncLocalStorage's hooks run for every promise).
 */
let asked = false;

/** Notes that code asked for its request: requests enter their scope from now on (see {@link scopesAsked}). */
export function askForScopes(): void {
  asked = true;
}

/** True once code has asked for its request (see {@link askForScopes}). */
export function scopesAsked(): boolean {
  return asked;
}

/** Runs `fn` (the rest of the request's hooks and its handler) inside `scope`. */
export function runInScope<T>(scope: RequestScope, fn: () => T): T {
  return current.run({ scope, depth: 0 }, fn);
}

/**
 * Runs what `channel` runs through `runStores` (the callbacks of a TracingChannel's
 * `traceCallback`, through its `asyncStart`) inside the frame `frameOf` gives for the
 * message, or outside any request when it gives none; the returned function undoes it.
 */
export function bindScope(channel: Channel, frameOf: (message: unknown) => ScopeFrame | undefined): () => void {
  // Running outside any request is what `undefined` asks for.
  const store = current as AsyncLocalStorage<ScopeFrame | undefined>;
  channel.bindStore(store, frameOf);
  return () => {
    channel.unbindStore(store);
  };
}

/** The scope of the profiled request whose code is running, if any and still recording. */
export function currentScope(): RequestScope | undefined {
  return currentFrame()?.scope;
}

/** The same, with the depth of the `span()` the code runs in. */
export function currentFrame(): ScopeFrame | undefined {
  const frame = current.getStore();
  return frame?.scope.open ? frame : undefined;
}

/**
 * Runs `fn` and records how long it took as a span of the current request, nested in the
 * span it runs in. A promise `fn` returns ends the span when it settles; a throw or a
 * rejection is recorded and passed on. Outside a profiled request it only runs `fn`.
 *
 * Only a native Promise is awaited: another thenable (a query builder) is returned as it
 * is, and its span covers the call alone (`async () => await query` measures the query).
 *
 * @example
 * ```ts
 * routes.get('/orders', ({ span }) => span('load orders', () => db.orders()));
 * ```
 */
export function span<T>(name: string, fn: () => T): T {
  const frame = current.getStore();
  if (frame === undefined) askForScopes();
  if (frame === undefined || !frame.scope.open) return fn();
  const { scope, depth } = frame;
  const started = performance.now();
  let record: SpanRecord | undefined;
  if (scope.takeSpanPlace()) {
    record = { name: spanName(name), start: round(started - scope.origin), duration: null, depth, error: false };
    scope.addSpan(record);
  }
  const end = (failed: boolean) => {
    if (record === undefined) return;
    record.duration = round(performance.now() - started);
    record.error = failed;
  };
  let result: T;
  try {
    result = current.run({ scope, depth: depth + 1 }, fn);
  } catch (error) {
    end(true);
    throw error;
  }
  if (!(result instanceof Promise)) {
    end(false);
    return result;
  }
  return result.then(
    (value) => {
      end(false);
      return value;
    },
    (error: unknown) => {
      end(true);
      throw error;
    },
  ) as T;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
