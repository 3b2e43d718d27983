/** The panel of a section no built-in panel knows (an application's collector): its data as nested tables. */
import { html, type SafeHtml } from '../../../errors/html.js';
import type { Panel } from './panel.js';

const MAX_DEPTH = 6;

export function renderValue(value: unknown, depth = 0): SafeHtml {
  if (value === null || value === undefined) return html`<span class="muted">${String(value)}</span>`;
  if (typeof value !== 'object') return html`<code>${String(value)}</code>`;
  if (depth >= MAX_DEPTH) return html`<pre class="block">${JSON.stringify(value)}</pre>`;
  const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
  if (entries.length === 0) return html`<span class="muted">${Array.isArray(value) ? '(empty list)' : '(empty)'}</span>`;
  return html`<table class="kv"><tbody>${entries.map(([key, item]) => html`<tr><th>${key}</th><td>${renderValue(item, depth + 1)}</td></tr>`)}</tbody></table>`;
}

export function genericPanel(name: string): Panel {
  return {
    name,
    title: name.charAt(0).toUpperCase() + name.slice(1),
    render: (section) => html`<h2>${name}</h2>${renderValue(section)}`,
  };
}
