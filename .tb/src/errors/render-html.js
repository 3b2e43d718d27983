import { isProjectFrame } from "../debug/stack-trace.js";
import { html, raw } from "./html.js";
import { sourceExcerpt } from "./source-excerpt.js";
const STYLE = raw(`<style>
:root{color-scheme:light dark;--bg:#f7f7f9;--fg:#1d1f23;--muted:#5f6670;--card:#fff;--line:#dde0e5;--accent:#b42318;--hl:#fff3c4}
@media(prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e6e8eb;--muted:#9aa3ad;--card:#1e2126;--line:#30343b;--accent:#ff7a6b;--hl:#3d3520}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,sans-serif}
header,main{max-width:1100px;margin:0 auto;padding:24px}header{border-bottom:3px solid var(--accent)}
h1{margin:0 0 8px;font-size:26px;color:var(--accent)}h2{font-size:18px;margin:0 0 12px}
.message{font-size:18px;margin:0 0 16px;word-break:break-word}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}dt{color:var(--muted)}dd{margin:0;word-break:break-all}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
a{color:inherit}ol{list-style:none;padding:0;margin:0}
li{background:var(--card);border:1px solid var(--line);border-radius:6px;margin:0 0 8px}
summary{padding:8px 12px;cursor:pointer}summary span{color:var(--muted)}
li.vendor summary{color:var(--muted)}pre{margin:0;padding:8px 0;overflow-x:auto;border-top:1px solid var(--line)}
pre span{display:block;padding:0 12px}pre span.hl{background:var(--hl)}pre i{color:var(--muted);font-style:normal;display:inline-block;width:4em}
</style>`);
const traceCache = /* @__PURE__ */ new WeakMap();
function renderTrace(frames) {
  let rendered = traceCache.get(frames);
  if (rendered === void 0) {
    rendered = html`<ol>${frames.map(renderFrame)}</ol>`;
    traceCache.set(frames, rendered);
  }
  return rendered;
}
function renderFrame(frame, index) {
  const own = isProjectFrame(frame);
  const excerpt = own ? sourceExcerpt(frame.file, frame.line) : void 0;
  const lines = excerpt?.map(
    (line) => html`<span class="${line.number === frame.line ? "hl" : ""}"><i>${line.number}</i>${line.text}</span>`
  );
  const summary = html`<summary><code>${frame.function}</code> <span>${frame.file}:${frame.line}</span></summary>`;
  return html`<li class="${own ? "own" : "vendor"}"><details${raw(own && index < 3 ? " open" : "")}>${summary}${lines ? html`<pre><code>${lines}</code></pre>` : ""}</details></li>`;
}
function renderDebugHtml(view) {
  const heading = `Error ${view.status} ${view.title}`;
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${heading}</title>${STYLE}</head>
<body><header><h1>${heading}</h1><p class="message">${view.message}</p>
<dl><dt>Request</dt><dd><code>${view.method} ${view.url}</code></dd>
<dt>Exception</dt><dd><code>${view.className}</code> (${view.code})</dd>
${view.reportUrl ? html`<dt>Debug report</dt><dd><a href="${view.reportUrl}">View the debug report ${view.token}</a></dd>` : ""}</dl></header>
<main><h2>Stack trace</h2>${renderTrace(view.frames)}</main></body></html>
`.value;
}
function renderProductionHtml(view) {
  const heading = `Error ${view.status} ${view.title}`;
  const advice = view.status >= 500 ? "The service could not complete this request. Please try again later." : "The service could not answer this request.";
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${heading}</title>${STYLE}</head>
<body><header><h1>${heading}</h1><p class="message">${advice}</p></header></body></html>
`.value;
}
export {
  renderDebugHtml,
  renderProductionHtml
};
//# sourceMappingURL=render-html.js.map
