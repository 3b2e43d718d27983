/**
 * One report as a page: a summary of the request, a menu with a panel per collector, and
 * the chosen panel (`?panel=`). Without a choice, the exception panel when there is an
 * exception, otherwise the request panel. Each panel is its own page: no script needed.
 */
import { html, raw, type SafeHtml } from '../../utils/html.js';
import { PROFILER_PATH } from '../../debug/request-debug.js';
import { isCollectorError, type Report } from '../model/report.js';
import type { Collector } from '../model/request-profile.js';
import { formatMs, formatTime, renderPage, statusBadge } from '../views/layout.js';
import { panelsOf } from './panels/index.js';
import type { Panel, PanelView } from '../model/panel.js';

function defaultPanel(report: Report): string {
  return report.collectors.exception !== undefined ? 'exception' : 'request';
}

/** The names `?panel=` accepts for this report: `collectors` are the ones this process registered. */
export function panelNames(report: Report, collectors: readonly Collector[] = []): string[] {
  return panelsOf(report.collectors, collectors).map((panel) => panel.name);
}

export function renderReportPage(
  report: Report,
  panelName = defaultPanel(report),
  view: PanelView = { query: {} },
  collectors: readonly Collector[] = [],
): string {
  const panels = panelsOf(report.collectors, collectors);
  const current = panels.find((panel) => panel.name === panelName) ?? panels[0]!;
  const body = html`<h1><span class="muted">${report.method}</span> ${report.url}</h1>
<div class="summary">${statusBadge(report.status)}
<span>IP <b class="mono">${report.ip}</b></span>
<span>${formatTime(report.time)}</span>
<span>${formatMs(report.duration)}</span>
<span>Token <b class="mono" id="token">${report.token}</b></span>${panels.map((panel) => summaryEntry(panel, report))}</div>
<div class="layout wrap-panels"><nav><ul class="menu">${panels.map((panel) => menuEntry(panel, report, panel === current))}</ul></nav>
<section class="card" id="panel-${current.name}" data-panel="${current.name}">${renderPanel(current, report, view)}</section></div>`;
  return renderPage({ title: `${report.method} ${report.url} (${report.status}) - vigil profiler`, body });
}

function menuEntry(panel: Panel, report: Report, current: boolean): SafeHtml {
  const section = report.collectors[panel.name];
  let badge: SafeHtml | string = '';
  if (section === undefined) badge = html`<span class="muted">none</span>`;
  else if (panel.badge && !isCollectorError(section)) badge = safely(() => panel.badge!(section, report), '');
  return html`<li><a href="${PROFILER_PATH}/${report.token}?panel=${encodeURIComponent(panel.name)}"${raw(current ? ' aria-current="page"' : '')}><span>${panel.title}</span><span class="count">${badge}</span></a></li>`;
}

/** What a panel says in the summary line (`3 queries in 12 ms`), if anything. */
function summaryEntry(panel: Panel, report: Report): SafeHtml | string {
  const section = report.collectors[panel.name];
  if (!panel.summary || section === undefined || isCollectorError(section)) return '';
  const text = safely(() => panel.summary!(section, report), undefined);
  return text ? html`\n<span id="summary-${panel.name}">${text}</span>` : '';
}

function renderPanel(panel: Panel, report: Report, view: PanelView): SafeHtml {
  const section = report.collectors[panel.name];
  if (section === undefined)
    return html`<h2>${panel.title}</h2><p class="muted">${panel.absent ?? 'This report has no such section.'}</p>`;
  if (isCollectorError(section))
    return html`<h2>${panel.title}</h2><p class="bad">The collector failed: ${section.collectorError}</p>`;
  // A report written by an older version may lack a field: the panel says so instead of failing the page.
  return safely(
    () => panel.render(section, report, view),
    html`<h2>${panel.title}</h2><p class="bad">This section cannot be shown; see the JSON form of the report.</p>`,
  );
}

function safely<T>(render: () => T, fallback: T): T {
  try {
    return render();
  } catch {
    return fallback;
  }
}
