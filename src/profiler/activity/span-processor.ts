/**
 * OpenTelemetry spans in the report: a span started while a profiled request's code runs goes onto its
 * waterfall, nested under its parent span, and a database span becomes one of its statements; spans
 * started elsewhere are ignored. Typed by shape only: the package works, and imports nothing, without
 * OpenTelemetry.
 */
import { performance } from 'node:perf_hooks';
import { beginSpan, type SpanRecord } from '../../http/request-scope.js';
import {
  currentActivity,
  round,
  spanCallSite,
  type RequestActivity,
  type StatementRecord,
} from './request-activity.js';

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
}

/** The SDK's `SpanProcessor` interface, by shape. */
export interface VigilSpanProcessor {
  onStart(span: TraceSpan, parentContext: unknown): void;
  onEnd(span: TraceSpan): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;

/** A span carrying open records, each processor's under a symbol of its own. */
type OpenSpan = TraceSpan & { [processor: symbol]: Recorded | undefined };
/** A request's record carrying the spans drawn, each processor's under a symbol of its own. */
type TracedActivity = RequestActivity & { [processor: symbol]: Recorded[] | undefined };

/** The span of `spanId` among a request's, the latest first: a parent has most often just started. */
function latest(spans: readonly Recorded[], spanId: string): Recorded | undefined {
  for (let at = spans.length - 1; at >= 0; at--) if (spans[at]!.spanId === spanId) return spans[at];
  return undefined;
}

/** A span started in a profiled request: what its end and its children need of it. */
interface Recorded {
  spanId: string;
  activity: RequestActivity;
  record: SpanRecord | undefined;
  depth: number;
  database: boolean;
  started: number;
  site: string | null;
  /** False: the stack was not looked at (see `RequestActivity.skipsSite`). */
  lookedUp: boolean;
  /** The line was recalled from earlier requests to the route (see `RequestActivity.siteFor`). */
  recalled: boolean;
}

interface Site {
  site: string | null;
  lookedUp: boolean;
  recalled: boolean;
}

const NO_SITE: Site = { site: null, lookedUp: true, recalled: false };
const SKIPPED: Site = { site: null, lookedUp: false, recalled: false };

/** The database a span speaks to (`postgresql`), when it is a database span. */
function databaseSystem(attributes: TraceSpan['attributes']): string | undefined {
  const system = attributes['db.system.name'] ?? attributes['db.system'];
  return typeof system === 'string' ? system : undefined;
}

function statementText(attributes: TraceSpan['attributes']): string | undefined {
  const text = attributes['db.query.text'] ?? attributes['db.statement'];
  return typeof text === 'string' ? text : undefined;
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
  parent: Recorded | undefined,
  activity: RequestActivity,
  onStart: VigilSpanProcessor['onStart'],
): Site {
  if (parent?.database && (parent.site !== null || !parent.lookedUp)) return parent;
  // A run of identical statements from one line: the next one is taken to go on with it.
  if (activity.skipsSite(text)) return SKIPPED;
  // The statement's text says what the call is; a span without one (a pool's connect), its name.
  const { site, recalled } = activity.siteFor('database', text ?? span.name, () => spanCallSite(onStart));
  if (site !== null) activity.lastSite = site;
  return { site: site ?? parent?.site ?? activity.lastSite, lookedUp: true, recalled };
}

/**
 * A `SpanProcessor` for the application's tracer provider (OpenTelemetry JS SDK 2.x). A database span
 * has `db.system.name` or `db.system`, with `db.query.text` or `db.statement`.
 *
 * @example
 * ```ts
 * import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
 * import { vigilSpanProcessor } from 'fastify-vigil';
 *
 * new NodeTracerProvider({ spanProcessors: [vigilSpanProcessor()] }).register();
 * ```
 */
export function vigilSpanProcessor(): VigilSpanProcessor {
  /**
   * An open span's record rides on the span, and a request's drawn spans on its record,
   * under symbols of this processor's own: a span as a WeakMap key costs an identity hash
   * and an ephemeron entry, and a map by span id that fills and empties per span rebuilds
   * its table, each the processor's largest cost in CPU profiles of (i). No one else sees
   * the symbols; a span's record goes when the span ends.
   */
  const RECORDED = Symbol('vigil.recorded');
  /** Each span on the request's waterfall, in start order (MAX_SPANS at most): children nest under it. */
  const DRAWN = Symbol('vigil.drawn');
  const processor: VigilSpanProcessor = {
    onStart(span) {
      const activity = currentActivity();
      if (activity === undefined) return;
      const { traceId, spanId } = span.spanContext();
      activity.traceId ??= traceId;
      const known = ((activity as TracedActivity)[DRAWN] ??= []);
      const parentId = span.parentSpanContext?.spanId ?? span.parentSpanId;
      const parent = parentId === undefined ? undefined : latest(known, parentId);
      const begun = beginSpan(span.name, parent === undefined ? undefined : parent.depth + 1, performance.now());
      if (begun === undefined) return;
      const { attributes } = span;
      const database = databaseSystem(attributes) !== undefined;
      // The stack is taken from below this method: vigil's frames are not walked.
      const { site, lookedUp, recalled } = database
        ? siteOf(span, statementText(attributes), parent, activity, processor.onStart)
        : NO_SITE;
      // After the stack, whose cost is vigil's: a statement's duration is the database's.
      const started = performance.now();
      const entry: Recorded = {
        spanId,
        activity,
        record: begun.record,
        depth: begun.depth,
        database,
        started,
        site,
        lookedUp,
        recalled,
      };
      // Past the waterfall's bound a span is not drawn, nor looked for as a parent.
      if (begun.record !== undefined) known.push(entry);
      (span as OpenSpan)[RECORDED] = entry;
    },
    onEnd(span) {
      const entry = (span as OpenSpan)[RECORDED];
      if (entry === undefined) return;
      (span as OpenSpan)[RECORDED] = undefined;
      const duration = round(performance.now() - entry.started);
      const error = span.status?.code === STATUS_ERROR;
      if (entry.record) {
        entry.record.duration = duration;
        entry.record.error = error;
      }
      const attributes = span.attributes;
      // Database attributes may be set after the start: read again.
      const system = databaseSystem(attributes);
      const text = statementText(attributes);
      if (system === undefined || text === undefined) return;
      const rows = attributes['db.response.returned_rows'];
      const statement: StatementRecord = {
        text,
        system,
        start: entry.activity.since(entry.started),
        duration,
        rows: typeof rows === 'number' ? rows : null,
        // Database attributes set only after the start: the line seen last is the best guess.
        site: entry.lookedUp ? (entry.site ?? entry.activity.lastSite) : entry.activity.runSiteFor(text),
        error,
      };
      if (!entry.lookedUp) statement.siteLookedUp = false;
      else if (entry.recalled) statement.siteRecalled = true;
      entry.activity.addStatement(statement);
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  return processor;
}
