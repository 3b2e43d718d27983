class SafeHtml {
  constructor(value) {
    this.value = value;
  }
  value;
  toString() {
    return this.value;
  }
}
const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
function escapeHtml(value) {
  return /[&<>"']/.test(value) ? value.replace(/[&<>"']/g, (char) => ENTITIES[char]) : value;
}
function render(value) {
  if (value === null || value === void 0 || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}
function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}
function raw(markup) {
  return new SafeHtml(markup);
}
export {
  SafeHtml,
  escapeHtml,
  html,
  raw
};
//# sourceMappingURL=html.js.map
