/**
 * The web debug toolbar: a bar at the foot of the application's HTML pages in debug mode
 * with what each collector shows there (the status, the route, the time, the memory, the log
 * lines, the application's activity), and a link to the report. No script. Its look is its own (dark, monospace, labelled), so it cannot be taken
 * for the page.
 */
import { admitInlineStyle } from '../../http/content-security-policy.js';
import { escapeHtml } from '../../utils/html.js';
import type { ToolbarEntry } from '../model/panel.js';

export interface ToolbarFacts {
  /** What each collector shows, in the collectors' order (status, route, time, memory, logs, activity). */
  entries: readonly ToolbarEntry[];
  token: string;
  /** The report's absolute link (`x-debug-token-link`). */
  link: string;
}

const STYLE = [
  '#vigil-toolbar{all:initial;position:fixed;left:0;right:0;bottom:0;z-index:2147483647;display:flex;flex-wrap:wrap;align-items:center;gap:0 18px;',
  'padding:6px 12px;background:#1b1d23;color:#e6e6e6;border-top:3px solid #8c5cf5;font:13px/1.6 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}',
  '#vigil-toolbar *{all:revert;font:inherit;color:inherit;margin:0}',
  '#vigil-toolbar b{color:#b9a4ff;font-weight:700}',
  '#vigil-toolbar .vt-warn{color:#e3b341}#vigil-toolbar .vt-ok{color:#7ee787}#vigil-toolbar .vt-redirect{color:#79c0ff}#vigil-toolbar .vt-error{color:#ff7b72}',
  '#vigil-toolbar a{color:#fff;background:#8c5cf5;padding:1px 8px;border-radius:3px;text-decoration:none;margin-left:auto}',
  '#vigil-toolbar a:focus,#vigil-toolbar a:hover{outline:2px solid #fff}',
].join('');

/**
 * The bar's markup: a labelled region, then its one style element with `nonce`. Each policy
 * of the response's Content-Security-Policy is made to admit that nonce (in style-src-elem,
 * {@link admitStyleNonce}), so that a strict policy still lets the bar show. A page with a
 * policy in its markup gets no bar ({@link hasPolicyInMarkup}).
 */
export function renderToolbar(facts: ToolbarFacts, nonce: string): string {
  const item = (label: string, value: string, className = '') =>
    `<span title="${escapeHtml(label)}"${className ? ` class="${className}"` : ''}>${escapeHtml(value)}</span>`;
  return (
    `<div id="vigil-toolbar" role="region" aria-label="vigil debug toolbar">` +
    `<b>vigil</b>` +
    facts.entries.map((entry) => item(entry.label, entry.value, entry.tone ? `vt-${entry.tone}` : '')).join('') +
    `<a href="${escapeHtml(facts.link)}">report ${escapeHtml(facts.token)}</a>` +
    `</div><style nonce="${escapeHtml(nonce)}">${STYLE}</style>`
  );
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

/**
 * Whether the page declares an enforced policy in a `<meta>` element: no header can give it the
 * nonce, so the bar would break it. Not tied to the tag, to stay linear on any page.
 */
export function hasPolicyInMarkup(page: string): boolean {
  return /http-equiv\s*=\s*["']?content-security-policy(?![\w-])/i.test(page);
}
