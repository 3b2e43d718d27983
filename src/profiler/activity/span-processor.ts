/**
 * OpenTelemetry spans in the report: {@link vigilSpanProcessor} is a `SpanProcessor` for
 * the application's tracer provider (OpenTelemetry JS SDK 2.x). A span started while a
 * profiled request's code runs goes onto its waterfall, nested under its parent span, and
 * a database span (`db.system.name` or `db.system`, with `db.query.text` or
 * `db.statement`) becomes one of its statements. Spans started elsewhere are ignored.
 *
 * Typed by shape only: the package works, and imports nothing, without OpenTelemetry.
 *
 * @example
 * ```ts
 * import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
 * import { vigilSpanProcessor } from 'vigil';
 *
 * new NodeTracerProvider({ spanProcessors: [vigilSpanProcessor()] }).register();
 * ```
 */
import { performance } from 'node:perf_hooks';
import { beginSpan, type SpanRecord } from '../../http/request-scope.js';
import { callSite, currentActivity, round, type RequestActivity } from './request-activity.js';

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

interface Open {
  activity: RequestActivity;
  record: SpanRecord | undefined;
  depth: number;
  started: number;
  site: string | null;
}

export function vigilSpanProcessor(): VigilSpanProcessor {
  const open = new WeakMap<TraceSpan, Open>();
  /** Depth of each span still recorded, by span id, per request: children nest under it. */
  const depths = new WeakMap<RequestActivity, Map<string, number>>();
  return {
    onStart(span) {
      const activity = currentActivity();
      if (activity === undefined) return;
      const { traceId, spanId } = span.spanContext();
      activity.traceId ??= traceId;
      let known = depths.get(activity);
      if (known === undefined) depths.set(activity, (known = new Map()));
      const parent = span.parentSpanContext?.spanId ?? span.parentSpanId;
      const parentDepth = parent === undefined ? undefined : known.get(parent);
      const begun = beginSpan(span.name, parentDepth === undefined ? undefined : parentDepth + 1);
      if (begun === undefined) return;
      known.set(spanId, begun.depth);
      const site = callSite();
      if (site !== null) activity.lastSite = site;
      open.set(span, { activity, record: begun.record, depth: begun.depth, started: performance.now(), site: site ?? activity.lastSite });
    },
    onEnd(span) {
      const entry = open.get(span);
      if (entry === undefined) return;
      open.delete(span);
      const duration = round(performance.now() - entry.started);
      const error = span.status?.code === STATUS_ERROR;
      if (entry.record) {
        entry.record.duration = duration;
        entry.record.error = error;
      }
      const attributes = span.attributes;
      const system = attributes['db.system.name'] ?? attributes['db.system'];
      const text = attributes['db.query.text'] ?? attributes['db.statement'];
      if (typeof system !== 'string' || typeof text !== 'string') return;
      const rows = attributes['db.response.returned_rows'];
      entry.activity.addStatement({
        text,
        system,
        start: entry.activity.since(entry.started),
        duration,
        rows: typeof rows === 'number' ? rows : null,
        site: entry.site,
        error,
      });
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}
