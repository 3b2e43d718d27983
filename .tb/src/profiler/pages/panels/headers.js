import { html } from "../../../errors/html.js";
import { keyValueTable } from "../layout.js";
function headerTable(headers) {
  return keyValueTable(
    Object.entries(headers).map(([name, value]) => [name, html`<code>${[value].flat().map((line, i) => html`${i > 0 ? html`<br>` : ""}${line}`)}</code>`]),
    "No headers"
  );
}
export {
  headerTable
};
//# sourceMappingURL=headers.js.map
