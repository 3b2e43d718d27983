/**
 * The frame of every profiler page: one self-contained HTML document with its styles
 * inline (light and dark, following the reader's preference), no script, no external
 * asset; plus the small formatters the pages share.
 */
import { html, raw, type SafeHtml } from '../../utils/html.js';
import { PROFILER_PATH } from '../../debug/request-debug.js';

export { formatBytes, formatMs, formatTime } from '../model/format.js';

const STYLE = raw(`<style>
:root{color-scheme:light dark;--bg:#f5f6f8;--fg:#1d1f23;--muted:#5f6670;--card:#fff;--line:#dde0e5;--accent:#3558c9;--ok:#1a7f37;--warn:#9a6700;--bad:#c62828;--hl:#fff3c4;--code:#eef0f3}
@media(prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e6e8eb;--muted:#9aa3ad;--card:#1e2126;--line:#30343b;--accent:#8fa8ff;--ok:#56d364;--warn:#e3b341;--bad:#ff7b72;--hl:#3d3520;--code:#262a31}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,sans-serif}
a{color:var(--accent)}code,pre,.mono{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
.top{display:flex;gap:20px;align-items:center;padding:10px 24px;background:var(--card);border-bottom:1px solid var(--line)}
.top b{font-size:16px}.top nav{display:flex;gap:16px}
.wrap{max-width:1280px;margin:0 auto;padding:20px 24px}
h1{font-size:20px;margin:0 0 6px;word-break:break-all}h2{font-size:17px;margin:0 0 12px}h3{font-size:14px;margin:18px 0 8px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.muted{color:var(--muted)}.ok{color:var(--ok)}.warn{color:var(--warn)}.bad{color:var(--bad)}
.badge{display:inline-block;min-width:3.2em;padding:1px 8px;border-radius:10px;font-weight:600;text-align:center;border:1px solid currentColor}
.pill{display:inline-block;min-width:1.8em;padding:0 7px;border-radius:9px;font-weight:600;text-align:center;border:1px solid currentColor}
ul.values{margin:0;padding-left:1.2em}table.records{margin:0 0 8px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px;margin:0 0 16px}
.stats{display:flex;flex-wrap:wrap;gap:8px 24px;margin:0 0 16px}.stats b{font-size:16px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;white-space:nowrap}td{word-break:break-all}
table.kv th{width:14em}tbody tr:hover{background:var(--code)}
.url{max-width:48em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
form.search{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;align-items:end}
form.search label{display:flex;flex-direction:column;gap:3px;color:var(--muted);font-size:12px}
input,select,button{font:inherit;padding:5px 8px;border:1px solid var(--line);border-radius:5px;background:var(--bg);color:var(--fg)}
button{background:var(--accent);color:var(--card);border:0;font-weight:600;cursor:pointer}
.layout{display:grid;grid-template-columns:250px minmax(0,1fr);gap:20px}@media(max-width:800px){.layout{grid-template-columns:1fr}}
.menu{list-style:none;margin:0;padding:0}.menu li a{display:flex;justify-content:space-between;gap:8px;padding:8px 12px;border-radius:6px;text-decoration:none;color:var(--fg)}
.menu li a:hover{background:var(--card)}.menu li a[aria-current=page]{background:var(--card);border-left:3px solid var(--accent);font-weight:600}
.menu .count{color:var(--muted);font-weight:400;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;max-width:65%}
.summary{display:flex;flex-wrap:wrap;align-items:center;gap:6px 22px;margin:8px 0 20px}meter{width:100%;min-width:120px}
ol.trace{list-style:none;padding:0;margin:0}ol.trace li{border:1px solid var(--line);border-radius:6px;margin:0 0 6px;background:var(--card)}
ol.trace summary{padding:6px 10px;cursor:pointer}ol.trace li:not(.app) summary,.file,.site,.common{color:var(--muted)}
ol.trace li.folded{background:none;border-style:dashed}ol.trace li.folded>details>ol{padding:0 8px}
section.related{margin:24px 0 0;padding:0 0 0 14px;border-left:3px solid var(--bad)}section.related section.related{margin-top:14px}section.related p{margin:0 0 8px}
section.related h3,section.related h4{font-size:15px;margin:0 0 6px;color:var(--fg);text-transform:none;letter-spacing:0}
pre{margin:0;padding:8px 0;overflow-x:auto;background:var(--code)}pre span{display:block;padding:0 10px}pre span.hl{background:var(--hl)}pre i{color:var(--muted);font-style:normal;display:inline-block;width:4em}
pre.block{padding:10px;white-space:pre-wrap;word-break:break-all}
details.call{margin:10px 0 0;padding:8px 0 0;border-top:1px solid var(--line)}details.call summary{cursor:pointer}
pre.sql{padding:10px;white-space:pre-wrap;word-break:normal;overflow-wrap:break-word}pre.sql b{font-weight:600;color:var(--accent)}pre.sql b.clause::before{content:"\\A";white-space:pre}
#timeline th.track,#timeline td.track{width:55%}#timeline tbody th{font-weight:400;color:var(--fg);white-space:normal;overflow-wrap:break-word}#timeline tr.stage th{color:var(--muted)}
.bar{display:block;height:12px;margin-top:4px;background:var(--accent);border-radius:3px;min-width:2px}.bar.stage{background:var(--muted)}.bar.error{background:var(--bad)}
.bar.call{background:var(--ok)}
.bar.open{background:repeating-linear-gradient(90deg,var(--accent) 0 6px,transparent 6px 10px)}
form.threshold{display:flex;gap:8px;align-items:center;margin:0 0 10px}form.threshold input{width:7em}
.level-error,.level-fatal{color:var(--bad)}.level-warn{color:var(--warn)}
</style>`);

interface PageOptions {
  title: string;
  body: SafeHtml;
}

export function renderPage({ title, body }: PageOptions): string {
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,"><title>${title}</title>${STYLE}</head>
<body><header class="top"><b>vigil profiler</b><nav><a href="${PROFILER_PATH}">Latest</a><a href="${PROFILER_PATH}/search">Search</a><a href="${PROFILER_PATH}/exceptions">Exceptions</a><a href="${PROFILER_PATH}/overview">Overview</a></nav></header>
<div class="wrap">${body}</div></body></html>
`.value;
}

/** ok for 1xx-3xx, warn for 4xx, bad for 5xx and aborted requests. */
function statusClass(status: number): string {
  return status >= 500 || status === 499 ? 'bad' : status >= 400 ? 'warn' : 'ok';
}

export function statusBadge(status: number): SafeHtml {
  return html`<span class="badge ${statusClass(status)}">${status}</span>`;
}

/** A two-column table of names and values; values already rendered stay as they are. */
export function keyValueTable(
  rows: ReadonlyArray<readonly [string, SafeHtml | string | number | null | undefined]>,
  empty = 'None',
  id?: string,
): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table class="kv"${id === undefined ? '' : html` id="${id}"`}><tbody>${rows.map(([name, value]) => html`<tr><th>${name}</th><td>${value ?? html`<span class="muted">n/a</span>`}</td></tr>`)}</tbody></table>`;
}
