/**
 * The web debug toolbar: a bar at the foot of the application's HTML pages in debug mode
 * with what each collector shows there (the status, the route, the time, the memory, the log
 * lines, the application's activity), each item opening a panel with its detail and the link
 * to its panel of the report; the page's own fetch and XHR calls, live; the report's link.
 * Its look is its own (dark, monospace, labelled), so it cannot be taken for the page; its
 * panels follow the page's colour scheme.
 */
import { admitInlineStyle } from '../../http/content-security-policy.js';
import { escapeHtml } from '../../utils/html.js';
import type { ToolbarEntry } from '../model/panel.js';
import { barScript, recorderScript } from './toolbar-script.js';

/** An entry with the report's panel it links to (its collector's). */
export interface ToolbarItem extends ToolbarEntry {
  panel?: { name: string; title: string };
}

export interface ToolbarFacts {
  /** What each collector shows, in the collectors' order (status, route, time, memory, logs, activity). */
  entries: readonly ToolbarItem[];
  token: string;
  /** The report's absolute link (`x-debug-token-link`). */
  link: string;
}

const BAR_STYLE = [
  '#vigil-toolbar{all:initial;position:fixed;left:0;right:0;bottom:0;z-index:2147483647;display:flex;flex-wrap:wrap;align-items:center;gap:0 14px;',
  'padding:4px 12px;background:#1b1d23;color:#e6e6e6;border-top:3px solid #8c5cf5;font:13px/1.6 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}',
  '#vigil-toolbar *{all:revert;font:inherit;color:inherit;margin:0;box-sizing:border-box}',
  '#vigil-toolbar [hidden]{display:none}',
  '#vigil-toolbar b{color:#b9a4ff;font-weight:700}',
  '#vigil-toolbar .vt-warn{color:#e3b341}#vigil-toolbar .vt-ok{color:#7ee787}#vigil-toolbar .vt-redirect{color:#79c0ff}#vigil-toolbar .vt-error{color:#ff7b72}',
  '#vigil-toolbar .vt-item{position:relative}',
  '#vigil-toolbar .vt-tab{background:none;border:0;padding:2px 4px;cursor:pointer;border-radius:3px}',
  '#vigil-toolbar .vt-item:hover>.vt-tab,#vigil-toolbar .vt-open>.vt-tab{background:#2d3039}',
  '#vigil-toolbar .vt-requests{margin-left:auto}',
  '#vigil-toolbar .vt-report{color:#fff;background:#8c5cf5;padding:1px 8px;border-radius:3px;text-decoration:none}',
  '#vigil-toolbar .vt-requests+.vt-report{margin-left:0}#vigil-toolbar .vt-requests[hidden]+.vt-report{margin-left:auto}',
  '#vigil-toolbar a:focus,#vigil-toolbar a:hover,#vigil-toolbar button:focus-visible{outline:2px solid #b9a4ff}',
  '#vigil-toolbar .vt-min,#vigil-toolbar .vt-restore{background:none;border:0;cursor:pointer;padding:0 4px}',
  '#vigil-toolbar .vt-restore{display:none;color:#b9a4ff;font-weight:700}',
  '#vigil-toolbar.vt-minimised{left:auto;padding:2px 6px}',
  '#vigil-toolbar.vt-minimised>:not(.vt-restore){display:none}#vigil-toolbar.vt-minimised>.vt-restore{display:inline}',
].join('');

/** The panels: light on a light page, dark on a dark one. Shown on hover, keyboard focus, or pinned by a click. */
const PANEL_STYLE = [
  '#vigil-toolbar .vt-panel{display:none;position:absolute;bottom:100%;left:0;min-width:240px;max-width:min(640px,94vw);max-height:60vh;overflow:auto;',
  'padding:8px 10px;background:#fff;color:#1b1d23;border:1px solid #c9ccd4;border-bottom:3px solid #8c5cf5;box-shadow:0 -4px 14px rgba(0,0,0,.2)}',
  '#vigil-toolbar .vt-item:hover>.vt-panel,#vigil-toolbar .vt-item:focus-within>.vt-panel,#vigil-toolbar .vt-open>.vt-panel{display:block}',
  '#vigil-toolbar .vt-requests .vt-panel,#vigil-toolbar .vt-flip>.vt-panel{left:auto;right:0}',
  '#vigil-toolbar table{border-collapse:collapse;width:100%}',
  '#vigil-toolbar th,#vigil-toolbar td{text-align:left;vertical-align:top;padding:1px 10px 1px 0;white-space:nowrap}',
  '#vigil-toolbar th{color:#5b6170;font-weight:400}#vigil-toolbar td.vt-url{white-space:normal;word-break:break-all;min-width:16em}',
  '#vigil-toolbar .vt-panel a{color:#6a3fd6;text-decoration:underline}#vigil-toolbar .vt-panel p{margin-top:6px}#vigil-toolbar .vt-panel b{color:#5a32c0}',
  '#vigil-toolbar .vt-panel .vt-ok{color:#1a7f37}#vigil-toolbar .vt-panel .vt-redirect{color:#0969da}#vigil-toolbar .vt-panel .vt-error{color:#cf222e}#vigil-toolbar .vt-panel .vt-warn{color:#9a6700}',
  '@media(prefers-color-scheme:dark){#vigil-toolbar .vt-panel{background:#24272e;color:#e6e6e6;border-color:#3a3e48}',
  '#vigil-toolbar th{color:#9aa3ad}#vigil-toolbar .vt-panel a{color:#c4b2ff}#vigil-toolbar .vt-panel b{color:#b9a4ff}',
  '#vigil-toolbar .vt-panel .vt-ok{color:#7ee787}#vigil-toolbar .vt-panel .vt-redirect{color:#79c0ff}#vigil-toolbar .vt-panel .vt-error{color:#ff7b72}#vigil-toolbar .vt-panel .vt-warn{color:#e3b341}}',
].join('');

/**
 * The bar's markup: a labelled region, then its style and script elements, each with
 * `nonce`. The response's policies are made to admit that nonce (style-src-elem and
 * script-src-elem, {@link admitStyleNonce}), so that a strict policy still lets the bar work.
 * A page with a policy in its markup gets no bar ({@link hasPolicyInMarkup}).
 */
export function renderToolbar(facts: ToolbarFacts, nonce: string): string {
  const attribute = escapeHtml(nonce);
  return (
    `<div id="vigil-toolbar" role="region" aria-label="vigil debug toolbar">` +
    `<b>vigil</b>` +
    facts.entries.map((entry, index) => renderItem(entry, index, facts.link)).join('') +
    renderRequestsItem() +
    `<a class="vt-report" href="${escapeHtml(facts.link)}">report ${escapeHtml(facts.token)}</a>` +
    `<button type="button" class="vt-min" title="Minimise the toolbar" aria-label="Minimise the toolbar">&#x25BE;</button>` +
    `<button type="button" class="vt-restore" title="Show the vigil toolbar" aria-label="Show the vigil toolbar" aria-expanded="true">vigil</button>` +
    `</div><style nonce="${attribute}">${BAR_STYLE}${PANEL_STYLE}</style>` +
    `<script nonce="${attribute}">${barScript()}</script>`
  );
}

/** The script that wraps the page's fetch and XHR before its own scripts run, for before `</head>`. */
export function renderRecorder(nonce: string): string {
  return `<script nonce="${escapeHtml(nonce)}">${recorderScript()}</script>`;
}

/** An item: its value as the button that pins its panel, the panel with its detail and the link to the report's panel. */
function renderItem(entry: ToolbarItem, index: number, link: string): string {
  const id = `vt-panel-${index}`;
  const tone = entry.tone ? ` vt-${entry.tone}` : '';
  const rows = (entry.detail ?? [])
    .map(([label, value]) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`)
    .join('');
  const panelLink = entry.panel
    ? `<p><a href="${escapeHtml(`${link}?panel=${encodeURIComponent(entry.panel.name)}`)}">${escapeHtml(entry.panel.title)} panel of the report</a></p>`
    : '';
  return (
    `<div class="vt-item"><button type="button" class="vt-tab${tone}" title="${escapeHtml(entry.label)}" aria-expanded="false" aria-controls="${id}">${escapeHtml(entry.value)}</button>` +
    `<div class="vt-panel" id="${id}" role="group" aria-label="${escapeHtml(entry.label)}"><b>${escapeHtml(entry.label)}</b>` +
    `${rows ? `<table>${rows}</table>` : ''}${panelLink}</div></div>`
  );
}

/** The page's own requests, filled by the script; hidden until the first one. */
function renderRequestsItem(): string {
  return (
    `<div class="vt-item vt-requests" hidden><button type="button" class="vt-tab" title="Requests of the page" aria-expanded="false" aria-controls="vt-panel-requests"></button>` +
    `<div class="vt-panel" id="vt-panel-requests" role="group" aria-label="Requests of the page"><b>Requests of the page</b>` +
    `<table><thead><tr><th>Method</th><th>URL</th><th>Status</th><th>Time</th><th>Report</th></tr></thead><tbody></tbody></table></div></div>`
  );
}

/** Elements whose text the parser reads as text, where a `</head>` is no end of the head. */
const TEXT_ELEMENTS: ReadonlyArray<readonly [string, string]> = [
  ['<script', '</script'],
  ['<style', '</style'],
  ['<title', '</title'],
  ['<textarea', '</textarea'],
  ['<!--', '-->'],
];

/**
 * The page with `recorder` before its first `</head>` (any case), or as it is without one,
 * or when that `</head>` is inside a script, a comment or another text element: there the
 * recorder would change the page's own text (the script after the bar records then).
 */
export function insertBeforeHeadEnd(page: string, recorder: string): string {
  const lower = page.toLowerCase();
  const at = lower.indexOf('</head>');
  if (at === -1) return page;
  const head = lower.slice(0, at);
  if (TEXT_ELEMENTS.some(([open, close]) => head.lastIndexOf(open) > head.lastIndexOf(close))) return page;
  return page.slice(0, at) + recorder + page.slice(at);
}

/** The page with `bar` before its last `</body>` (any case), or undefined when it has none. */
export function insertBeforeBodyEnd(page: string, bar: string): string | undefined {
  const at = page.toLowerCase().lastIndexOf('</body>');
  return at === -1 ? undefined : page.slice(0, at) + bar + page.slice(at);
}

/** A Content-Security-Policy header that admits the toolbar's `<style>` element by its nonce (see `admitInlineStyle`). */
export function admitStyleNonce(header: string, nonce: string): string {
  return admitInlineStyle(header, `'nonce-${nonce}'`);
}

/** The same for the toolbar's `<script>` elements, through script-src-elem. */
export function admitScriptNonce(header: string, nonce: string): string {
  return admitInlineStyle(header, `'nonce-${nonce}'`, 'script');
}

/**
 * Whether the page declares an enforced policy in a `<meta>` element: no header can give it the
 * nonce, so the bar would break it. Not tied to the tag, to stay linear on any page.
 */
export function hasPolicyInMarkup(page: string): boolean {
  return /http-equiv\s*=\s*["']?content-security-policy(?![\w-])/i.test(page);
}
