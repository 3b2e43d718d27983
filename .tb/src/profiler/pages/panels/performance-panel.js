import { html } from "../../../errors/html.js";
import { formatMs, keyValueTable } from "../layout.js";
import { definePanel } from "./panel.js";
const STAGE_NAMES = {
  routing: "Routing (kernel hooks, 404/405 decision)",
  body: "Reading the body",
  handler: "Handler",
  rendering: "Rendering the error page",
  sending: "Sending"
};
const performancePanel = definePanel({
  name: "performance",
  title: "Performance",
  badge: (section) => formatMs(section.total),
  render(section) {
    const total = section.total ?? 0;
    const delay = section.eventLoopDelay;
    return html`<h2>Performance</h2>
${keyValueTable([["Total", formatMs(section.total)]])}
<h3>Stages</h3>
<table id="stages"><tbody>${Object.entries(section.stages).map(
      ([stage, ms]) => html`<tr><th>${STAGE_NAMES[stage] ?? stage}</th><td>${formatMs(ms)}</td><td><meter min="0" max="${total || 1}" value="${ms}"></meter></td></tr>`
    )}</tbody></table>
<h3>Event loop</h3>
${keyValueTable([
      ["Utilization during the request", section.eventLoopUtilization === null ? null : `${(section.eventLoopUtilization * 100).toFixed(1)} %`],
      [
        delay ? `Delay (the ${formatMs(delay.windowMs)} before the report)` : "Delay",
        delay ? `mean ${formatMs(delay.mean)}, p50 ${formatMs(delay.p50)}, p99 ${formatMs(delay.p99)}, max ${formatMs(delay.max)}` : "not measured yet (just after start)"
      ]
    ])}`;
  }
});
export {
  performancePanel
};
//# sourceMappingURL=performance-panel.js.map
