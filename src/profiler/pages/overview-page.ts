/**
 * The overview across requests (`/_profiler/overview`): routes, statements, upstreams and
 * exceptions over the last hour, day or week, each row linking to a report kept of it.
 */
import { html, type SafeHtml } from '../../utils/html.js';
import { PROFILER_PATH } from '../../debug/request-debug.js';
import { KEYS_PER_KIND, OTHER } from '../overview/minute-counts.js';
import { OVERVIEW_WINDOWS, type OverviewSummary, type OverviewWindow } from '../overview/overview-summary.js';
import { formatMs, formatTime, renderPage } from '../views/layout.js';

export function renderOverviewPage(summary: OverviewSummary): string {
  const body = html`<h1>Overview</h1>
<nav class="windows" id="windows">${Object.keys(OVERVIEW_WINDOWS).map((window) =>
    window === summary.window
      ? html`<b aria-current="page">${window}</b> `
      : html`<a href="${PROFILER_PATH}/overview?window=${window}">${window}</a> `,
  )}<span class="muted">${summary.requests} requests</span></nav>
<section class="card" id="routes"><h2>Routes</h2>${routes(summary)}${others(
    summary.routes.map((row) => row.route),
    'routes',
  )}</section>
<section class="card" id="statements"><h2>Statements</h2>${statements(summary)}${others(
    summary.statements.map((row) => row.statement),
    'statements',
  )}</section>
<section class="card" id="upstreams"><h2>Upstreams</h2>${upstreams(summary)}${others(
    summary.upstreams.map((row) => row.upstream),
    'upstreams',
  )}</section>
<section class="card" id="exceptions"><h2>Exceptions</h2>${exceptions(summary)}${others(
    summary.exceptions.map((row) => row.fingerprint),
    'exceptions',
  )}</section>`;
  return renderPage({ title: `Overview (${summary.window}) - vigil profiler`, body });
}

/** The window a query names, or the last hour. */
export function overviewWindow(query: unknown): OverviewWindow {
  const asked = (query as { window?: unknown } | undefined)?.window;
  return typeof asked === 'string' && Object.hasOwn(OVERVIEW_WINDOWS, asked) ? (asked as OverviewWindow) : '1h';
}

const report = (token: string | null, label: SafeHtml | string): SafeHtml | string =>
  token === null ? label : html`<a class="mono" href="${PROFILER_PATH}/${token}">${label}</a>`;

const ms = (value: number | null): string => (value === null ? 'n/a' : formatMs(value));

const none = (what: string) => html`<p class="muted">No ${what} in this window.</p>`;

/** What the `(other)` row holds, under a table that has one: the keys past a minute's bound, counted together. */
const others = (keys: readonly string[], what: string): SafeHtml | string =>
  keys.includes(OTHER)
    ? html`<p class="muted other">${OTHER} counts together the ${what} seen in a minute after its first ${KEYS_PER_KIND}.</p>`
    : '';

function routes({ routes }: OverviewSummary): SafeHtml {
  if (routes.length === 0) return none('requests');
  return html`<table><thead><tr><th>Route</th><th>Requests</th><th>4xx</th><th>5xx</th><th>p50</th><th>p95</th><th>p99</th><th>Slowest kept</th></tr></thead><tbody>
${routes.map(
  (row) => html`<tr><td class="mono">${row.route}</td><td>${row.requests}</td><td>${row.clientErrors}</td>
<td class="${row.serverErrors > 0 ? 'bad' : ''}">${row.serverErrors}</td><td>${ms(row.p50)}</td><td>${ms(row.p95)}</td><td>${ms(row.p99)}</td>
<td>${row.slowest === null ? html`<span class="muted">none kept</span>` : report(row.slowest.token, formatMs(row.slowest.ms))}</td></tr>`,
)}</tbody></table>`;
}

function statements({ statements }: OverviewSummary): SafeHtml {
  if (statements.length === 0) return none('statements');
  return html`<table><thead><tr><th>Statement</th><th>Runs</th><th>Total</th><th>p95</th><th>Routes</th><th>Most in one request</th></tr></thead><tbody>
${statements.map(
  (
    row,
  ) => html`<tr><td class="mono sql">${row.statement}</td><td>${row.count}</td><td>${formatMs(row.totalMs)}</td><td>${ms(row.p95)}</td>
<td class="mono">${row.routes.join(', ')}</td><td class="${row.worstRepeat > 1 ? 'warn' : ''}">${report(row.worstRepeatToken, String(row.worstRepeat))}</td></tr>`,
)}</tbody></table>`;
}

function upstreams({ upstreams }: OverviewSummary): SafeHtml {
  if (upstreams.length === 0) return none('outgoing calls');
  return html`<table><thead><tr><th>Upstream</th><th>Calls</th><th>Errors</th><th>p95</th></tr></thead><tbody>
${upstreams.map(
  (row) =>
    html`<tr><td class="mono">${row.upstream}</td><td>${row.calls}</td><td class="${row.errors > 0 ? 'bad' : ''}">${row.errors}</td><td>${ms(row.p95)}</td></tr>`,
)}</tbody></table>`;
}

function exceptions({ exceptions }: OverviewSummary): SafeHtml {
  if (exceptions.length === 0) return none('exceptions');
  return html`<table><thead><tr><th>Exception</th><th>Raised at</th><th>Message</th><th>Count</th><th>First seen</th><th>Last seen</th><th>Newest kept</th></tr></thead><tbody>
${exceptions.map(
  (
    row,
  ) => html`<tr><td class="mono">${row.className}</td><td class="mono">${row.place}</td><td>${row.message}</td><td>${row.count}</td>
<td>${formatTime(row.first)}</td><td>${formatTime(row.last)}</td><td>${report(row.newestToken, row.newestToken ?? '')}</td></tr>`,
)}</tbody></table>`;
}
