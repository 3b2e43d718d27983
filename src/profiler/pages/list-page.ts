/**
 * The pages that list reports: the newest ones (`/_profiler`, live) and search results, each
 * with the search form. A whole row opens its report; an exception links to its group.
 */
import { html, raw, type SafeHtml } from '../../utils/html.js';
import { PROFILER_PATH } from '../../debug/request-debug.js';
import type { ProfilerStats } from '../writer/report-writer.js';
import type { ListedReport, ReportSearch } from '../model/report.js';
import { HTTP_METHODS } from '../../routing/routes.js';
import { formatDuration } from '../model/format.js';
import { formatMs, formatTime, renderPage, statusBadge } from '../views/layout.js';
import { LIVE_LIST_SCRIPT } from './live-list-script.js';

interface ListPageView {
  heading: string;
  reports: readonly ListedReport[];
  /** The filters in force, to fill the form again. */
  filters: ReportSearch;
  stats: ProfilerStats;
  /** Where the same search goes on through older reports, when it stopped at its budget. */
  older?: string | undefined;
  /** The page follows new reports: the query of its search in JSON, and the nonce of its script. */
  live?: { query: string; nonce: string } | undefined;
  /** The same list with the browser's own requests shown, or hidden: the link that switches. */
  assetsSwitch: { href: string; showing: boolean };
}

const LIST_STYLE = raw(`<style>
tr.listed{position:relative}a.row-link::after{content:"";position:absolute;inset:0}tr.listed:hover{cursor:pointer}
a.group-link{position:relative;z-index:1}tr.fresh{animation:fresh 2s ease-out}@keyframes fresh{from{background:var(--hl)}}
.list-head{display:flex;flex-wrap:wrap;gap:8px 20px;align-items:baseline;margin:0 0 10px}
#live[data-state=off]{color:var(--warn)}td.num{text-align:right}
</style>`);

export function renderListPage(view: ListPageView): string {
  const body = html`${LIST_STYLE}<h1>${view.heading}</h1>
${renderStats(view.stats)}
<section class="card">${renderSearchForm(view.filters)}</section>
<section class="card"><div class="list-head">${renderLive(view)}${renderAssetsSwitch(view)}<a href="${PROFILER_PATH}/exceptions">Exceptions, grouped</a></div>
${renderResults(view.reports)}${renderOlder(view)}</section>${renderScript(view)}`;
  return renderPage({ title: `${view.heading} - vigil profiler`, body });
}

function renderLive({ live, filters }: ListPageView): SafeHtml | string {
  if (!live) return '';
  return html`<span class="muted" id="live" data-query="${live.query}" data-limit="${filters.limit ?? 100}" data-state="starting">Live: new requests appear as they come</span>`;
}

function renderScript({ live }: ListPageView): SafeHtml | string {
  return live ? html`<script nonce="${live.nonce}">${raw(LIVE_LIST_SCRIPT)}</script>` : '';
}

function renderAssetsSwitch({ assetsSwitch }: ListPageView): SafeHtml {
  const label = assetsSwitch.showing
    ? "Hide the browser's own requests"
    : "Show the browser's own requests (favicon.ico, apple-touch-icon, .well-known)";
  return html`<a id="assets-switch" href="${assetsSwitch.href}">${label}</a>`;
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
${field('Route', 'route', filters.route, html`placeholder="/api/products/{id}"`)}
${field('Exception', 'exception', filters.exception, html`placeholder="TypeError"`)}
${field('Slower than (ms)', 'min_duration', filters.minDuration, html`inputmode="decimal" placeholder="250"`)}
${field('Token', 'token', filters.token, html`placeholder="a1b2c3"`)}
${field('From (UTC)', 'start', filters.start === undefined ? undefined : timeInput(filters.start), html`type="datetime-local" step="1"`)}
${field('Until (UTC)', 'end', filters.end === undefined ? undefined : timeInput(filters.end), html`type="datetime-local" step="1"`)}
${field('Limit', 'limit', filters.limit, html`type="number" min="1" max="1000"`)}
${filters.fingerprint ? html`<input type="hidden" name="fingerprint" value="${filters.fingerprint}">` : ''}
${filters.hideAssets === false ? html`<input type="hidden" name="assets" value="show">` : ''}
<button type="submit">Search</button></form>`;
}

function timeInput(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19);
}

function renderRow(report: ListedReport): SafeHtml {
  const exception = report.exception
    ? html`<a class="group-link bad" href="${PROFILER_PATH}/exceptions#group-${report.fingerprint ?? ''}">${report.exception}</a>`
    : '';
  const count = (value: number | null) => (value === null ? '' : value);
  return html`<tr class="listed" data-token="${report.token}"><td>${statusBadge(report.status)}</td><td>${report.method}</td><td class="url mono" title="${report.url}">${report.url}</td>
<td class="mono">${report.route ?? html`<span class="muted">no route</span>`}</td><td>${exception}</td><td class="num">${count(report.statements)}</td><td class="num">${count(report.calls)}</td>
<td>${formatMs(report.duration)}</td><td>${formatTime(report.time)}</td><td><a class="mono row-link" href="${PROFILER_PATH}/${report.token}">${report.token}</a></td></tr>`;
}

function renderResults(reports: readonly ListedReport[]): SafeHtml {
  const empty = reports.length === 0 ? html`<p class="muted" id="no-results">No reports match.</p>` : '';
  return html`<table id="results"><thead><tr><th>Status</th><th>Method</th><th>URL</th><th>Route</th><th>Exception</th><th title="Database statements">SQL</th><th title="Outgoing HTTP calls">Calls</th><th>Duration</th><th>Time</th><th>Token</th></tr></thead><tbody id="results-body">
${reports.map(renderRow)}</tbody></table>${empty}`;
}
