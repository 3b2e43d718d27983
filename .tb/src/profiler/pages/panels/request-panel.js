import { html } from "../../../errors/html.js";
import { formatBytes, keyValueTable } from "../layout.js";
import { headerTable } from "./headers.js";
import { definePanel } from "./panel.js";
const requestPanel = definePanel({
  name: "request",
  title: "Request",
  badge: (section) => section.method,
  render(section) {
    const client = section.remoteAddress && section.remoteAddress !== section.ip ? `${section.ip} (via ${section.remoteAddress})` : section.ip;
    const tls = section.tls ? [section.tls.version, section.tls.cipher, section.tls.servername && `SNI ${section.tls.servername}`].filter(Boolean).join(", ") : "none (plain HTTP)";
    return html`<h2>Request</h2>
${keyValueTable([
      ["Method", section.method],
      ["URL", html`<code>${section.url}</code>`],
      ["Protocol", section.protocol],
      ["Client", `${client}${section.remotePort ? ` port ${section.remotePort}` : ""}`],
      ["TLS", tls],
      ["Body", section.bodySize === null ? "none declared" : `${formatBytes(section.bodySize)} declared, ${section.bodyRead ? "read" : "not read"}`]
    ])}
<h3>Query parameters</h3>
${keyValueTable(section.query.map(({ name, value }) => [name, html`<code>${value}</code>`]), "No query string")}
<h3>Headers</h3>
${headerTable(section.headers)}`;
  }
});
export {
  requestPanel
};
//# sourceMappingURL=request-panel.js.map
