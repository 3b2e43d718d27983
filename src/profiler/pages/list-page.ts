/** The pages that list reports: the newest ones (`/_profiler`) and search results, each with the search form. */
import { html, type SafeHtml } from '../../utils/html.js';
import { PROFILER_PATH } from '../../debug/request-debug.js';
import type { ProfilerStats } from '../writer/report-writer.js';
import type { ReportSearch, ReportSummary } from '../model/report.js';
import { HTTP_METHODS } from '../../routing/routes.js';
import { formatDuration } from '../model/format.js';
import { formatMs, formatTime, renderPage, statusBadge } from '../views/layout.js';

interface ListPageView {
  heading: string;
  reports: readonly ReportSummary[];
  /** The filters in force, to fill the form again. */
  filters: ReportSearch;
  stats: ProfilerStats;
  /** Where the same search goes on through older reports, when it stopped at its budget. */
  older?: string | undefined;
}

export function renderListPage(view: ListPageView): string {
  const body = html`<h1>${view.heading}</h1>
${renderStats(view.stats)}
<section class="card">${renderSearchForm(view.filters)}</section>
<section class="card">${renderResults(view.reports)}${renderOlder(view)}</section>`;
  return renderPage({ title: `${view.heading} - vigil profiler`, body });
}

/** A search that stopped at its budget: what it read, and the way on. */
function renderOlder({ older, reports }: ListPageView): SafeHtml | string {
  if (older === undefined) return '';
  const found =
    reports.length === 0 ? 'No report matches among the newest ones read' : 'These match among the newest ones read';
  return html`<p class="more" id="older">${found}; older reports are not searched yet. <a href="${older}" rel="next">Search older reports</a></p>`;
}

function renderStats(stats: ProfilerStats): SafeHtml {
  const retention = stats.retention
    ? html`<span>Kept: the newest <b>${stats.retention.maxReports}</b> for <b>${formatDuration(stats.retention.maxAgeMs)}</b></span>`
    : '';
  return html`<div class="stats" id="stats">
<span><b>${stats.stored}</b> stored</span>
<span><b>${stats.queued}</b> waiting to be written</span>
<span class="${stats.dropped > 0 ? 'bad' : ''}" id="dropped"><b>${stats.dropped}</b> dropped since start</span>
<span><b>${stats.purged}</b> deleted by retention since start</span>
${retention}</div>`;
}

function renderSearchForm(filters: ReportSearch): SafeHtml {
  const field = (label: string, name: string, value: string | number | undefined, extra: SafeHtml | string = '') =>
    html`<label>${label}<input name="${name}" value="${value ?? ''}" ${extra}></label>`;
  return html`<form class="search" method="get" action="${PROFILER_PATH}/search" role="search">
${field('IP', 'ip', filters.ip, html`placeholder="127.0.0.1"`)}
${field('Method', 'method', filters.method, html`list="methods" placeholder="any"`)}
<datalist id="methods">${HTTP_METHODS.map((method) => html`<option value="${method}">`)}</datalist>
${field('Status', 'status_code', filters.statusCode, html`inputmode="numeric" placeholder="404"`)}
${field('URL contains', 'url', filters.url, html`placeholder="/robots.txt"`)}
${field('Token', 'token', filters.token, html`placeholder="a1b2c3"`)}
${field('From (UTC)', 'start', filters.start === undefined ? undefined : timeInput(filters.start), html`type="datetime-local" step="1"`)}
${field('Until (UTC)', 'end', filters.end === undefined ? undefined : timeInput(filters.end), html`type="datetime-local" step="1"`)}
${field('Limit', 'limit', filters.limit, html`type="number" min="1" max="1000"`)}
<button type="submit">Search</button></form>`;
}

function timeInput(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19);
}

function renderResults(reports: readonly ReportSummary[]): SafeHtml {
  if (reports.length === 0) return html`<p class="muted" id="no-results">No reports match.</p>`;
  return html`<table id="results"><thead><tr><th>Status</th><th>Method</th><th>URL</th><th>IP</th><th>Time</th><th>Duration</th><th>Token</th></tr></thead><tbody>
${reports.map(
  (
    report,
  ) => html`<tr data-token="${report.token}"><td>${statusBadge(report.status)}</td><td>${report.method}</td><td class="url mono" title="${report.url}">${report.url}</td>
<td class="mono">${report.ip}</td><td>${formatTime(report.time)}</td><td>${formatMs(report.duration)}</td><td><a class="mono" href="${PROFILER_PATH}/${report.token}">${report.token}</a></td></tr>`,
)}</tbody></table>`;
}
