import { html, raw } from "../../../errors/html.js";
import { keyValueTable } from "../layout.js";
import { definePanel } from "./panel.js";
function renderFrame(frame, index) {
  const lines = frame.excerpt?.map((line) => html`<span class="${line.number === frame.line ? "hl" : ""}"><i>${line.number}</i>${line.text}</span>`);
  return html`<li class="${frame.own ? "own" : "vendor"}"><details${raw(frame.own && index < 3 ? " open" : "")}><summary><code>${frame.function}</code> <span class="muted">${frame.file}:${frame.line}</span></summary>${lines ? html`<pre><code>${lines}</code></pre>` : ""}</details></li>`;
}
const exceptionPanel = definePanel({
  name: "exception",
  title: "Exception",
  absent: "No exception was raised while handling this request.",
  badge: (section) => html`<span class="bad">${section.class}</span>`,
  render(section) {
    return html`<h2>${section.class}</h2>
<p class="card" id="exception-message">${section.message}</p>
${keyValueTable([
      ["Code", html`<code>${section.code}</code>`],
      ["Status", section.status],
      ["Raised at", section.file ? html`<code>${section.file}:${section.line}</code>` : "unknown"]
    ])}
<h3>Stack trace</h3>
<ol class="trace">${section.trace.map(renderFrame)}</ol>`;
  }
});
export {
  exceptionPanel
};
//# sourceMappingURL=exception-panel.js.map
