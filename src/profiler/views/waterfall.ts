/**
 * The timeline of a request as a waterfall: the kernel's stages and the application's
 * spans, one row each, ordered by start, bars drawn with inline styles (the pages run no
 * script). A threshold hides the shorter spans as Symfony's timeline does (`?threshold=1`,
 * in ms); the stages always show.
 */
import { html, type SafeHtml } from '../../utils/html.js';
import type { SpanRecord } from '../../http/request-scope.js';
import { formatMs } from './layout.js';
import type { PanelView } from '../model/panel.js';

/** What a waterfall is drawn from: the performance section's timings. */
interface WaterfallInput {
  total: number | null;
  /** Milliseconds per stage, in the order the request went through them. */
  stages: Record<string, number>;
  spans?: SpanRecord[] | undefined;
  spansOmitted?: number | undefined;
}

/** Something the application waited on outside its code (an HTTP call), drawn beside the spans. */
export interface WaterfallCall {
  name: string;
  start: number;
  duration: number | null;
  error: boolean;
}

const STAGE_NAMES: Record<string, string> = {
  routing: 'Routing (kernel hooks, 404/405 decision)',
  body: 'Reading the body',
  handler: 'Handler',
  rendering: 'Rendering the error page',
  sending: 'Sending',
};

interface Row {
  kind: 'stage' | 'span' | 'call';
  name: string;
  label: string;
  start: number;
  /** Null: still running when the report was made. */
  duration: number | null;
  /** Indentation: stages 0, a handler's span 1, a span inside it 2, ... */
  level: number;
  error: boolean;
}

export function renderWaterfall(
  section: WaterfallInput,
  view?: PanelView,
  calls: readonly WaterfallCall[] = [],
): SafeHtml {
  const asked = [view?.query.threshold].flat()[0];
  const threshold = asked === undefined || asked === '' ? 0 : Number(asked);
  const valid = Number.isFinite(threshold) && threshold >= 0;
  const rows = stageRows(section.stages);
  const spans = section.spans ?? [];
  const shown = spans.filter((span) => !valid || span.duration === null || span.duration >= threshold);
  for (const span of shown)
    rows.push({
      kind: 'span',
      name: span.name,
      label: span.name,
      start: span.start,
      duration: span.duration,
      level: span.depth + 1,
      error: span.error,
    });
  for (const call of calls)
    rows.push({
      kind: 'call',
      name: call.name,
      label: call.name,
      start: call.start,
      duration: call.duration,
      level: 1,
      error: call.error,
    });
  // Stable: a span that starts with a stage comes after it.
  rows.sort((a, b) => a.start - b.start);
  const scale = Math.max(section.total ?? 0, ...rows.map((row) => row.start + (row.duration ?? 0))) || 1;
  const end = section.total ?? scale;
  const hidden = spans.length - shown.length;
  return html`${thresholdForm(valid ? (asked ?? '') : '', asked !== undefined && !valid ? asked : undefined)}
<table id="timeline"><thead><tr><th>Step</th><th class="track">0 to ${formatMs(scale)}</th><th>Duration</th></tr></thead><tbody>${rows.map((row) => renderRow(row, scale, end))}</tbody></table>
${spans.length === 0 ? html`<p class="muted">No span was recorded: a handler measures its own steps with <code>span(name, fn)</code>.</p>` : ''}
${hidden > 0 ? html`<p class="muted" id="hidden-spans">${hidden} ${hidden === 1 ? 'span' : 'spans'} shorter than ${formatThreshold(threshold)} ms hidden.</p>` : ''}
${(section.spansOmitted ?? 0) > 0 ? html`<p class="warn">${section.spansOmitted} more spans were not kept (a report keeps 256).</p>` : ''}`;
}

/** Stages run one after another from the request's arrival: each starts where the one before ended. */
function stageRows(stages: Record<string, number>): Row[] {
  let start = 0;
  return Object.entries(stages).map(([name, duration]) => {
    const row: Row = { kind: 'stage', name, label: STAGE_NAMES[name] ?? name, start, duration, level: 0, error: false };
    start += duration;
    return row;
  });
}

function renderRow(row: Row, scale: number, end: number): SafeHtml {
  const width = row.duration ?? Math.max(0, end - row.start);
  const classes = ['bar', row.kind, row.error ? 'error' : '', row.duration === null ? 'open' : '']
    .filter(Boolean)
    .join(' ');
  const bar = html`<span class="${classes}" style="margin-left:${percent(row.start, scale)}%;width:${percent(width, scale)}%"></span>`;
  const duration =
    row.duration === null
      ? html`<span class="muted">still running when the report was made</span>`
      : formatMs(row.duration);
  return html`<tr class="${row.kind}${row.error ? ' error' : ''}" data-name="${row.name}"><th style="padding-left:${Number((0.5 + row.level * 1.2).toFixed(1))}em">${row.label}</th><td class="track">${bar}</td><td>${duration}${row.error ? html` <span class="bad">failed</span>` : ''}</td></tr>`;
}

function percent(ms: number, scale: number): number {
  return Number(Math.min(100, Math.max(0, (ms / scale) * 100)).toFixed(3));
}

function formatThreshold(ms: number): string {
  return String(Number(ms.toFixed(3)));
}

function thresholdForm(value: string, invalid: string | undefined): SafeHtml {
  return html`<form method="get" class="threshold"><input type="hidden" name="panel" value="performance"><label>Hide spans shorter than <input type="number" name="threshold" min="0" step="any" value="${value}"> ms</label> <button type="submit">Apply</button></form>${
    invalid === undefined
      ? ''
      : html`<p class="warn">"${invalid}" is not a number of milliseconds: no span is hidden.</p>`
  }`;
}
