import { html, raw } from "../../errors/html.js";
import { PROFILER_PATH } from "../../debug/request-debug.js";
import { formatMs, formatTime, renderPage, statusBadge } from "./layout.js";
import { panelsOf } from "./panels/index.js";
function defaultPanel(report) {
  return report.collectors.exception !== void 0 ? "exception" : "request";
}
function panelNames(report) {
  return panelsOf(report.collectors).map((panel) => panel.name);
}
function renderReportPage(report, panelName = defaultPanel(report)) {
  const panels = panelsOf(report.collectors);
  const current = panels.find((panel) => panel.name === panelName) ?? panels[0];
  const body = html`<h1><span class="muted">${report.method}</span> ${report.url}</h1>
<div class="summary">${statusBadge(report.status)}
<span>IP <b class="mono">${report.ip}</b></span>
<span>${formatTime(report.time)}</span>
<span>${formatMs(report.duration)}</span>
<span>Token <b class="mono" id="token">${report.token}</b></span></div>
<div class="layout wrap-panels"><nav><ul class="menu">${panels.map((panel) => menuEntry(panel, report, panel === current))}</ul></nav>
<section class="card" id="panel-${current.name}" data-panel="${current.name}">${renderPanel(current, report)}</section></div>`;
  return renderPage({ title: `${report.method} ${report.url} (${report.status}) - vigil profiler`, body });
}
function menuEntry(panel, report, current) {
  const section = report.collectors[panel.name];
  let badge = "";
  if (section === void 0) badge = html`<span class="muted">none</span>`;
  else if (panel.badge && !isFailed(section)) badge = safely(() => panel.badge(section, report), "");
  return html`<li><a href="${PROFILER_PATH}/${report.token}?panel=${encodeURIComponent(panel.name)}"${raw(current ? ' aria-current="page"' : "")}><span>${panel.title}</span><span class="count">${badge}</span></a></li>`;
}
function renderPanel(panel, report) {
  const section = report.collectors[panel.name];
  if (section === void 0) return html`<h2>${panel.title}</h2><p class="muted">${panel.absent ?? "This report has no such section."}</p>`;
  if (isFailed(section)) return html`<h2>${panel.title}</h2><p class="bad">The collector failed: ${section.collectorError}</p>`;
  return safely(() => panel.render(section, report), html`<h2>${panel.title}</h2><p class="bad">This section cannot be shown; see the JSON form of the report.</p>`);
}
function isFailed(section) {
  return typeof section === "object" && section !== null && "collectorError" in section;
}
function safely(render, fallback) {
  try {
    return render();
  } catch {
    return fallback;
  }
}
export {
  defaultPanel,
  panelNames,
  renderReportPage
};
//# sourceMappingURL=report-page.js.map
