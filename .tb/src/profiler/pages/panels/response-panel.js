import { STATUS_CODES } from "node:http";
import { html } from "../../../errors/html.js";
import { formatBytes, keyValueTable, statusBadge } from "../layout.js";
import { headerTable } from "./headers.js";
import { definePanel } from "./panel.js";
const responsePanel = definePanel({
  name: "response",
  title: "Response",
  badge: (section) => statusBadge(section.status),
  render(section) {
    return html`<h2>Response</h2>
${section.aborted ? html`<p class="bad">The client closed the connection before this response was written.</p>` : ""}
${keyValueTable([
      ["Status", html`${statusBadge(section.status)} ${STATUS_CODES[section.status] ?? ""}`],
      ["Size", section.size === null ? "not declared (streamed)" : formatBytes(section.size)]
    ])}
<h3>Headers</h3>
${headerTable(section.headers)}`;
  }
});
export {
  responsePanel
};
//# sourceMappingURL=response-panel.js.map
