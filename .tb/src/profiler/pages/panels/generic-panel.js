import { html } from "../../../errors/html.js";
const MAX_DEPTH = 6;
function renderValue(value, depth = 0) {
  if (value === null || value === void 0) return html`<span class="muted">${String(value)}</span>`;
  if (typeof value !== "object") return html`<code>${String(value)}</code>`;
  if (depth >= MAX_DEPTH) return html`<pre class="block">${JSON.stringify(value)}</pre>`;
  const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
  if (entries.length === 0) return html`<span class="muted">${Array.isArray(value) ? "(empty list)" : "(empty)"}</span>`;
  return html`<table class="kv"><tbody>${entries.map(([key, item]) => html`<tr><th>${key}</th><td>${renderValue(item, depth + 1)}</td></tr>`)}</tbody></table>`;
}
function genericPanel(name) {
  return {
    name,
    title: name.charAt(0).toUpperCase() + name.slice(1),
    render: (section) => html`<h2>${name}</h2>${renderValue(section)}`
  };
}
export {
  genericPanel,
  renderValue
};
//# sourceMappingURL=generic-panel.js.map
