/**
 * OpenTelemetry spans in the report: a span goes onto the waterfall of its parent span's request
 * (see `span-requests.ts`), or, when vigil knows no request of its parent, of the profiled request
 * whose code starts it, nested under its parent span; a database span becomes one of its
 * statements; other spans are ignored. Typed by shape only: the package works, and imports
 * nothing, without OpenTelemetry.
 */
import { performance } from 'node:perf_hooks';
import { askForScopes, currentFrame, spanName, type SpanRecord } from '../../http/request-scope.js';
import { cutString } from '../model/report-bounds.js';
import {
  activityFor,
  MAX_STATEMENT_LENGTH,
  round,
  spanCallSite,
  type LateRecords,
  type RequestActivity,
  type StatementRecord,
} from './request-activity.js';
import { followSpans, noteSpan, requestOfParent } from './span-requests.js';
import { keptStatementText } from './statement-text.js';

/** What vigil reads of a span: the fields of the SDK's `ReadableSpan` it needs. */
export interface TraceSpan {
  readonly name: string;
  spanContext(): { traceId: string; spanId: string };
  /** SDK 2.x. */
  readonly parentSpanContext?: { spanId: string } | undefined;
  /** SDK 1.x. */
  readonly parentSpanId?: string | undefined;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly status?: { code: number } | undefined;
  /** True once the span ended, its `duration` then `[seconds, nanoseconds]`. */
  readonly ended?: boolean;
  readonly duration?: readonly [number, number];
}

/** The SDK's `SpanProcessor` interface, by shape. */
export interface VigilSpanProcessor {
  onStart(span: TraceSpan, parentContext: unknown): void;
  onEnd(span: TraceSpan): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Characters of a statement's text read to name it: more than a span's name holds once spaces are squeezed. */
const MAX_STATEMENT_NAME = 512;

/** `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;

/** A request's record carrying each processor's spans under a symbol of its own. */
type TracedActivity = RequestActivity & { [processor: symbol]: RequestSpans | undefined };
/** A database span carrying its entry until it ends, each processor's under a symbol of its own. */
type OpenSpan = TraceSpan & { [processor: symbol]: Started | undefined };

/** A span started in a profiled request, as its start saw it: the rest is read from the span when asked. */
interface Started {
  /** Let go once a database span's end filed what the report needs of it. */
  span: TraceSpan | undefined;
  spanId: string;
  owner: RequestSpans;
  /** Milliseconds from the request's arrival. */
  start: number;
  /** As the waterfall draws it, cut to its bound. */
  name: string;
  /** Below its parent when that is drawn, otherwise at the depth of the `span()` it started in. */
  depth: number;
  /** It took a place on the waterfall. */
  drawn: boolean;
  /** The database it speaks to (`postgresql`), for a database span. */
  system: string | undefined;
  /** Its statement, cut to its bound: set when a database span ends with one, and takes a statement's place. */
  text: string | undefined;
  /** Filed by a database span's end, while the span is at hand; other spans are read when asked. */
  ended: boolean;
  duration: number | null;
  error: boolean;
  rows: number | null;
  site: string | null;
  /** False: the stack was not looked at (see `RequestActivity.skipsSite`). */
  lookedUp: boolean;
  /** The line was recalled from earlier requests to the route (see `RequestActivity.siteFor`). */
  recalled: boolean;
}

/** The spans one processor saw start in one request, read into records when the report asks. */
class RequestSpans implements LateRecords {
  /** The spans on the waterfall (MAX_SPANS at most), in start order: a child's parent is one of them. */
  readonly drawn: Started[] = [];
  /** Database spans past the waterfall's bound whose statement took a place, in end order. */
  readonly pastWaterfall: Started[] = [];

  constructor(readonly activity: RequestActivity) {}

  spans(): SpanRecord[] {
    const records: SpanRecord[] = [];
    for (const entry of this.drawn) {
      const { start, depth, span } = entry;
      // A statement is named by its text: `pg.query:SELECT shop` says which database, not which query.
      const name = entry.text === undefined ? entry.name : statementName(entry.text);
      if (entry.ended || span === undefined)
        records.push({ name, start, duration: entry.duration, depth, error: entry.error });
      else records.push({ name, start, duration: durationOf(span), depth, error: failed(span) });
    }
    return records;
  }

  statements(): StatementRecord[] {
    const statements: StatementRecord[] = [];
    for (const entry of this.drawn) if (entry.text !== undefined) statements.push(statementOf(entry, entry.text));
    if (this.pastWaterfall.length === 0) return statements;
    for (const entry of this.pastWaterfall) statements.push(statementOf(entry, entry.text!));
    return statements.sort((a, b) => a.start - b.start);
  }
}

/** A statement's text on one line, as a span's name is bounded. */
function statementName(text: string): string {
  return spanName(text.slice(0, MAX_STATEMENT_NAME).replace(/\s+/g, ' ').trim());
}

function statementOf(entry: Started, text: string): StatementRecord {
  const statement: StatementRecord = {
    text,
    system: entry.system!,
    start: entry.start,
    duration: entry.duration,
    rows: entry.rows,
    site: entry.site,
    error: entry.error,
  };
  if (!entry.lookedUp) statement.siteLookedUp = false;
  else if (entry.recalled) statement.siteRecalled = true;
  return statement;
}

function parentIdOf(span: TraceSpan): string | undefined {
  return span.parentSpanContext?.spanId ?? span.parentSpanId;
}

/** Milliseconds, once the span ended; null while it runs. */
function durationOf(span: TraceSpan): number | null {
  const duration = span.duration;
  return span.ended === true && duration !== undefined ? round(duration[0] * 1e3 + duration[1] / 1e6) : null;
}

function failed(span: TraceSpan): boolean {
  return span.status?.code === STATUS_ERROR;
}

/** The span of `spanId` among a request's, the latest first: a parent has most often just started. */
function latest(spans: readonly Started[], spanId: string): Started | undefined {
  for (let at = spans.length - 1; at >= 0; at--) if (spans[at]!.spanId === spanId) return spans[at];
  return undefined;
}

interface Site {
  site: string | null;
  lookedUp: boolean;
  recalled: boolean;
}

const NO_SITE: Site = { site: null, lookedUp: true, recalled: false };
/** Its line is taken, when it ends, from the run of statements it goes on. */
const SKIPPED: Site = { site: null, lookedUp: false, recalled: false };

/** The database a span speaks to (`postgresql`), when it is a database span. */
function databaseSystem(attributes: TraceSpan['attributes']): string | undefined {
  const system = attributes['db.system.name'] ?? attributes['db.system'];
  return typeof system === 'string' ? system : undefined;
}

/** The span's statement, its literals replaced (`statement-text.ts`): the raw text goes no further. */
function statementText(attributes: TraceSpan['attributes']): string | undefined {
  const text = attributes['db.query.text'] ?? attributes['db.statement'];
  return typeof text === 'string' ? keptStatementText(text, databaseSystem(attributes)) : undefined;
}

/**
 * The application's line behind a database span, whose statement text is `text` if it has
 * one (a stack is the cost, so only database spans are looked at): a statement a library
 * runs from its own callback (pg's pool hands out a client, then runs the query) is a child
 * of the span that the application's call opened, and takes its line.
 */
function siteOf(
  span: TraceSpan,
  text: string | undefined,
  parent: Started | undefined,
  activity: RequestActivity,
  onStart: VigilSpanProcessor['onStart'],
): Site {
  if (parent?.system !== undefined && (parent.site !== null || !parent.lookedUp)) return parent;
  // A run of identical statements from one line: the next one is taken to go on with it.
  if (activity.skipsSite(text)) return SKIPPED;
  // The statement's text says what the call is; a span without one (a pool's connect), its name.
  const { site, recalled } = activity.siteFor('database', text ?? span.name, () => spanCallSite(onStart));
  if (site !== null) activity.lastSite = site;
  return { site: site ?? parent?.site ?? activity.lastSite, lookedUp: true, recalled };
}

/**
 * A `SpanProcessor` for the application's tracer provider (OpenTelemetry JS SDK 2.x). A database span
 * has `db.system.name` or `db.system` when it starts, and `db.query.text` or `db.statement` by its end.
 *
 * Beside the application's own exporter, both go in `spanProcessors`: NodeSDK ignores its
 * `traceExporter` once `spanProcessors` is given.
 *
 * @example
 * ```ts
 * import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
 * import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
 * import { vigilSpanProcessor } from 'fastify-vigil';
 *
 * new NodeTracerProvider({
 *   spanProcessors: [new BatchSpanProcessor(teamExporter), vigilSpanProcessor()],
 * }).register();
 * ```
 */
export function vigilSpanProcessor(): VigilSpanProcessor {
  const keys: ProcessorKeys = { spans: Symbol('vigil.spans'), open: Symbol('vigil.open') };
  followSpans();
  const processor: VigilSpanProcessor = {
    // The stack is taken from below this method: vigil's frames are not walked.
    onStart: (span, parentContext) => startSpan(keys, span, parentContext, processor.onStart),
    onEnd: (span) => endSpan(keys, span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  return processor;
}

/** Where a database span says how many rows its statement returned or changed. */
const ROWS = 'db.response.returned_rows';

/**
 * A `responseHook` for `@opentelemetry/instrumentation-pg`, which reports no rows of its own:
 * it puts pg's `rowCount` (the rows a SELECT returned, or an INSERT, UPDATE or DELETE
 * changed) on the span as `db.response.returned_rows`, which the Database panel shows.
 *
 * @example
 * ```ts
 * registerInstrumentations({ instrumentations: [new PgInstrumentation({ responseHook: vigilPgResponseHook })] });
 * ```
 */
export function vigilPgResponseHook(
  span: { setAttribute(key: string, value: number): unknown },
  response: { data?: unknown },
): void {
  const result = response?.data as { rowCount?: unknown; rows?: unknown } | null | undefined;
  const count = result?.rowCount;
  if (typeof count === 'number' && Number.isSafeInteger(count) && count >= 0) span.setAttribute(ROWS, count);
  else if (Array.isArray(result?.rows)) span.setAttribute(ROWS, result.rows.length);
}

/**
 * A request's spans ride on its record, and an open database span carries its entry,
 * under symbols of one processor's own: each processor keeps its own. A span's start
 * files what only the start can know (its place, its line, its parent); a database span's
 * end files its statement while the span is at hand, and lets the span go; any other
 * span's end costs nothing, and is read from the span (held until then) when the report
 * is made.
 */
interface ProcessorKeys {
  readonly spans: symbol;
  readonly open: symbol;
}

function startSpan(
  keys: ProcessorKeys,
  span: TraceSpan,
  parentContext: unknown,
  onStart: VigilSpanProcessor['onStart'],
) {
  const frame = currentFrame();
  if (frame === undefined) askForScopes();
  // Its parent's request when known: the code running may be another request's (a pool's callback).
  const scope = requestOfParent(parentContext) ?? frame?.scope;
  if (scope === undefined) return;
  // Undefined once the request was reported: a span started later is no report's.
  const activity = activityFor(scope);
  if (activity === undefined) return;
  noteSpan(span, scope);
  const { traceId, spanId } = span.spanContext();
  activity.traceId ??= traceId;
  const start = activity.since(performance.now());
  const system = databaseSystem(span.attributes);
  const traced = activity as TracedActivity;
  let spans = traced[keys.spans];
  if (spans === undefined) activity.addLateRecords((spans = traced[keys.spans] = new RequestSpans(activity)));
  const drawn = scope.takeSpanPlace();
  if (system === undefined && !drawn) return;
  const parentId = parentIdOf(span);
  const parent = parentId === undefined ? undefined : latest(spans.drawn, parentId);
  const site = system === undefined ? NO_SITE : siteOf(span, statementText(span.attributes), parent, activity, onStart);
  const entry: Started = {
    span,
    spanId,
    owner: spans,
    start,
    name: spanName(span.name),
    // Started in its request's code: at the depth of the `span()` it runs in.
    depth: parent?.drawn ? parent.depth + 1 : frame?.scope === scope ? frame.depth : 0,
    drawn,
    system,
    text: undefined,
    ended: false,
    duration: null,
    error: false,
    rows: null,
    site: site.site,
    lookedUp: site.lookedUp,
    recalled: site.recalled,
  };
  if (drawn) spans.drawn.push(entry);
  // A database span's statement text may be set only after its start: its end files it.
  if (system !== undefined) (span as OpenSpan)[keys.open] = entry;
}

function endSpan(keys: ProcessorKeys, span: TraceSpan) {
  const entry = (span as OpenSpan)[keys.open];
  if (entry === undefined) return;
  (span as OpenSpan)[keys.open] = undefined;
  const { owner } = entry;
  const { activity } = owner;
  entry.ended = true;
  // A span without the SDK's own duration is timed from its start as vigil saw it.
  entry.duration = durationOf(span) ?? round(activity.since(performance.now()) - entry.start);
  entry.error = failed(span);
  entry.span = undefined;
  const { attributes } = span;
  const text = statementText(attributes);
  if (text === undefined) return;
  const rows = attributes[ROWS];
  entry.rows = typeof rows === 'number' ? rows : null;
  // Skipped: the line of the run it goes on, if the same text. Not found: the line seen last is the best guess.
  if (!entry.lookedUp) entry.site = activity.runSiteFor(text);
  else entry.site ??= activity.lastSite;
  activity.followRun(text, entry.site, entry.lookedUp);
  if (!activity.takeStatementPlace()) return;
  entry.text = cutString(text, MAX_STATEMENT_LENGTH);
  if (!entry.drawn) owner.pastWaterfall.push(entry);
}
