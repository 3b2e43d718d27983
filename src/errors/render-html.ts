/**
 * The HTML error pages: a compact debug page (message, request, exception, what would fix
 * the request, trace with source excerpts and the kernel's frames folded, causes, link to
 * the report) and a
 * production page showing nothing internal. Both are self-contained and follow the
 * reader's light or dark preference.
 */
import { createHash } from 'node:crypto';
import type { EditorLinkFormat } from './editor-link.js';
import type { RelatedErrors } from './error-chain.js';
import type { ErrorView } from './error-view.js';
import { html, raw, type SafeHtml } from '../utils/html.js';
import { renderHints } from './render-hints.js';
import { fileLine, renderRelated, renderTrace } from './render-trace.js';
import { relatedView, siteLink, traceLines, type TraceLine } from './trace-lines.js';
import { ThrowView } from '../debug/throw-views.js';

const STYLE_TEXT = `
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
summary{padding:8px 12px;cursor:pointer}.file,.muted,.common{color:var(--muted)}
li.kernel summary,li.vendor summary,li.external summary,li.folded>details>summary{color:var(--muted)}li.folded{background:none;border-style:dashed}
li.folded>details>ol{padding:0 8px}pre{margin:0;padding:8px 0;overflow-x:auto;border-top:1px solid var(--line)}
pre span{display:block;padding:0 12px}pre span.hl{background:var(--hl)}pre i{color:var(--muted);font-style:normal;display:inline-block;width:4em}
section.related{margin:28px 0 0;padding:0 0 0 16px;border-left:3px solid var(--accent)}section.related section.related{margin-top:16px}
section.related .message{font-size:16px;margin:0 0 6px}.site,.common,.muted{margin:0 0 10px}
#near-routes,#schema-violations{margin:0 0 24px}#near-routes ul{margin:0;padding:0 0 0 20px;list-style:disc}#near-routes li{background:none;border:0;margin:0 0 4px}
table{border-collapse:collapse}th,td{text-align:left;padding:4px 16px 4px 0;border-bottom:1px solid var(--line);vertical-align:top}td code{word-break:break-all}
`;
const STYLE = raw(`<style>${STYLE_TEXT}</style>`);

/** The pages' one `<style>` element as a CSP source: the same on every page, so admitted by its hash (no nonce breaks the pages' caching). */
export const PAGE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE_TEXT).digest('base64')}'`;

const mainTraces = new ThrowView<readonly TraceLine[], SafeHtml>();

const renderTopTrace = (lines: readonly TraceLine[]) => renderTrace(lines, 3);

/** The trace of a throw path is the same on every request; render it once. */
function renderMainTrace(lines: readonly TraceLine[]): SafeHtml {
  return mainTraces.of(lines, renderTopTrace);
}

export interface DebugHtmlOptions {
  /** VIGIL_IDE: the project's files become links to the editor. */
  editor?: EditorLinkFormat | undefined;
}

export function renderDebugHtml(view: ErrorView, { editor }: DebugHtmlOptions = {}): string {
  const heading = `Error ${view.status} ${view.title}`;
  const site = view.raisedBy
    ? html`<dt>Raised by</dt><dd>${view.raisedBy}</dd>`
    : view.site
      ? html`<dt>Raised at</dt><dd>${fileLine(view.site.file, view.site.line, siteLink(view.site, editor))}</dd>`
      : '';
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,"><title>${heading}</title>${STYLE}</head>
<body><header><h1>${heading}</h1><p class="message">${view.message}</p>
<dl><dt>Request</dt><dd><code>${view.method} ${view.url}</code></dd>
<dt>Exception</dt><dd><code>${view.className}</code> (${view.code})</dd>
${site}${view.reportUrl ? html`<dt>Debug report</dt><dd><a href="${view.reportUrl}">View the debug report ${view.token}</a></dd>` : ''}</dl></header>
<main>${renderHints(view.hints, 2)}<h2>Stack trace</h2>${renderMainTrace(traceLines(view.frames, editor))}${view.related && hasRelated(view.related) ? renderRelated(relatedView(view.related, editor), 2) : ''}</main></body></html>
`.value;
}

/** True when the page has causes or members to show. */
export const hasRelated = (related: RelatedErrors): boolean =>
  related.cause !== undefined || related.members !== undefined || related.truncated === true;

export function renderProductionHtml(view: Pick<ErrorView, 'status' | 'title'>): string {
  const heading = `Error ${view.status} ${view.title}`;
  const advice =
    view.status >= 500
      ? 'The service could not complete this request. Please try again later.'
      : 'The service could not answer this request.';
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${heading}</title>${STYLE}</head>
<body><header><h1>${heading}</h1><p class="message">${advice}</p></header></body></html>
`.value;
}
