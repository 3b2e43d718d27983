/**
 * The performance section, its panel and its text: total duration, the time spent in each stage of the request,
 * the application's own spans (`span(name, fn)` in a handler), how busy the event loop
 * was meanwhile, and the event-loop delay the process saw.
 */
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { RequestScope, SpanRecord } from '../../http/request-scope.js';
import { activityOf } from '../activity/request-activity.js';
import type { Report } from '../model/report.js';
import type { HttpClientSection } from '../activity/sections.js';
import { html } from '../../utils/html.js';
import { formatMs } from '../model/format.js';
import { keyValueTable } from '../views/layout.js';
import { renderWaterfall, type WaterfallCall } from '../views/waterfall.js';
import { type CollectorRuntime, defineCollector } from '../model/collector-unit.js';
import type { CollectorContext, StageMarks } from '../model/request-profile.js';
import type { CollectorSetup } from './collector-setup.js';

const STAGE_OF: ReadonlyArray<[keyof StageMarks, string]> = [
  ['start', 'routing'],
  ['parsing', 'body'],
  ['handler', 'handler'],
  ['error', 'rendering'],
  ['send', 'sending'],
];

interface DelayWindow {
  /** Length of the window the figures cover. */
  windowMs: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Milliseconds spent in each stage the request went through, in order. A stage runs from
 * one mark to the next one the request reached (see {@link StageMarks}): routing (the
 * kernel's own hooks and, for unrouted requests, the 404/405/301 decision), body (reading
 * and parsing it, validation and the preHandler hooks), handler (including serializing what
 * it returned), rendering (the error
 * pipeline building an error page) and sending.
 */
function stageDurations(marks: StageMarks): Record<string, number> {
  const reached = STAGE_OF.filter(([mark]) => marks[mark] !== undefined);
  const stages: Record<string, number> = {};
  reached.forEach(([mark, stage], i) => {
    const next = i + 1 < reached.length ? marks[reached[i + 1]![0]] : marks.end;
    if (next !== undefined) stages[stage] = round(next - marks[mark]!);
  });
  return stages;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

const DELAY_RESOLUTION_MS = 10;
const FIRST_WINDOW_MS = 100;

/**
 * Event-loop delay in windows of a second at least (the first, 100 ms): each report shows the
 * last window ended, by its own asking or an earlier report's. A window ends when a report
 * asks past its length, not on a timer: reading the histogram walks all its buckets, and
 * production keeps few reports. A window that spans a quiet spell says how long it was.
 */
export class DelayMonitor {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  private last: DelayWindow | null = null;
  private windowStart: number;
  private windowMs = FIRST_WINDOW_MS;

  /** `now` is the clock windows are measured by; a test passes its own to end them at will. */
  constructor(
    private readonly fullWindowMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.windowStart = now();
    this.histogram.enable();
  }

  latest(): DelayWindow | null {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.last = this.figures(Math.round(now - this.windowStart));
      this.histogram.reset();
      this.windowStart = now;
      this.windowMs = this.fullWindowMs;
    }
    return this.last;
  }

  close(): void {
    this.histogram.disable();
  }

  private figures(windowMs: number): DelayWindow | null {
    const h = this.histogram;
    if (h.count === 0) return null;
    // The histogram counts nanoseconds between samples; the delay is what exceeds the sampling interval.
    const ms = (ns: number) => round(Math.max(0, ns / 1e6 - DELAY_RESOLUTION_MS));
    return { windowMs, mean: ms(h.mean), p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
  }
}

export interface PerformanceSection {
  total: number | null;
  stages: Record<string, number>;
  eventLoopUtilization: number | null;
  eventLoopDelay: DelayWindow | null;
  /** In the order they began; absent in reports written before spans were kept. */
  spans?: SpanRecord[];
  /** Spans beyond the per-request bound (MAX_SPANS). */
  spansOmitted?: number;
  /** The OpenTelemetry trace the request's spans belong to, to find it in a tracing backend. */
  traceId?: string;
}

/** The application's HTTP calls, as the waterfall draws them beside the spans. */
function callsOf(report: Report): WaterfallCall[] {
  const section = report.collectors.httpClient as Partial<HttpClientSection> | undefined;
  if (!Array.isArray(section?.calls)) return [];
  return section.calls.map((call) => ({
    name: `${call.method} ${call.url}`,
    start: call.start,
    duration: call.duration,
    error: call.error !== null,
  }));
}

export const performanceCollector = defineCollector<PerformanceSection, CollectorSetup>({
  name: 'performance',
  panel: {
    title: 'Performance',
    badge: (section) => formatMs(section.total),
    summary: (section) => (section.traceId ? `Trace ${section.traceId}` : undefined),
    render(section, report, view) {
      const delay = section.eventLoopDelay;
      return html`${keyValueTable([['Total', formatMs(section.total)], ...(section.traceId ? [['Trace id', html`<code id="trace-id">${section.traceId}</code>`] as const] : [])])}
<h3>Timeline</h3>
${renderWaterfall(section, view, callsOf(report))}
<h3>Event loop</h3>
${keyValueTable([
  [
    'Utilization during the request',
    section.eventLoopUtilization === null ? null : `${(section.eventLoopUtilization * 100).toFixed(1)} %`,
  ],
  [
    delay ? `Delay (the ${formatMs(delay.windowMs)} before the report)` : 'Delay',
    delay
      ? `mean ${formatMs(delay.mean)}, p50 ${formatMs(delay.p50)}, p99 ${formatMs(delay.p99)}, max ${formatMs(delay.max)}`
      : 'not measured yet (just after start)',
  ],
])}`;
    },
  },
  text(section) {
    const stages = Object.entries(section.stages).map(([stage, ms]) => `${stage} ${formatMs(ms)}`);
    const lines = [`total ${formatMs(section.total)}${stages.length ? `: ${stages.join(', ')}` : ''}`];
    for (const span of section.spans ?? []) {
      const took = span.duration === null ? 'still running' : formatMs(span.duration);
      lines.push(`${'  '.repeat(span.depth)}span ${span.name} ${took}${span.error ? ' (failed)' : ''}`);
    }
    if (section.eventLoopDelay)
      lines.push(
        `event-loop delay p99 ${formatMs(section.eventLoopDelay.p99)}, max ${formatMs(section.eventLoopDelay.max)}`,
      );
    return lines;
  },
  toolbar: ({ profile }) => {
    const now = performance.now();
    const stages = Object.entries(stageDurations({ ...profile.marks, end: now }));
    return [
      {
        label: 'Time until the response was sent',
        value: formatMs(now - profile.marks.start),
        detail: stages.map(([stage, ms]) => [stage, formatMs(ms)] as const),
      },
    ];
  },
  create: ({ production }) => performanceRuntime(production === true),
});

function traceOf(scope: RequestScope): { traceId?: string } {
  const traceId = activityOf(scope)?.traceId;
  return traceId ? { traceId } : {};
}

/** The application's spans and its libraries', in the order they began. */
function spansOf(scope: RequestScope): SpanRecord[] {
  // Copies: a span still running may end after its report was made.
  const own = scope.spans.map(({ name, start, duration, depth, error }) => ({ name, start, duration, depth, error }));
  const libraries = activityOf(scope)?.lateSpans() ?? [];
  if (libraries.length === 0) return own;
  if (own.length === 0) return libraries;
  // Stable: of two spans begun in the same microsecond, the application's is drawn first.
  return [...own, ...libraries].sort((a, b) => a.start - b.start);
}

/** `production`: every request is followed and few are kept, so the loop's use is not read at each arrival. */
function performanceRuntime(production: boolean): CollectorRuntime<PerformanceSection> {
  // Sampling starts with the kernel, so that early requests have figures too.
  let delays: DelayMonitor | undefined = new DelayMonitor();
  return {
    ...(production
      ? {}
      : {
          start({ profile }: CollectorContext) {
            profile.data.performance = performance.eventLoopUtilization();
          },
        }),
    collect({ profile }) {
      const { marks } = profile;
      const since = profile.data.performance as EventLoopUtilization | undefined;
      return {
        total: marks.end === undefined ? null : round(marks.end - marks.start),
        stages: stageDurations(marks),
        // Share of the request's lifetime the loop spent running code (this request's or others').
        eventLoopUtilization: since ? round(performance.eventLoopUtilization(since).utilization) : null,
        eventLoopDelay: delays?.latest() ?? null,
        spans: spansOf(profile.scope),
        spansOmitted: profile.scope.spansOmitted,
        ...traceOf(profile.scope),
      };
    },
    close() {
      delays?.close();
      delays = undefined;
    },
  };
}
