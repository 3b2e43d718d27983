/**
 * How a section is shown when its collector brings no renderer of its own: objects as
 * name and value tables, an array of records as one table whose columns are the records'
 * keys, other arrays as lists, and numbers rounded (`3.287`, not `3.287261999998009`).
 */
import { html, type SafeHtml } from '../../utils/html.js';

const MAX_DEPTH = 6;
/** Columns of a records table: keys past these are shown in a record's last cell. */
const MAX_COLUMNS = 20;

/** Whole numbers as they are; three decimals from 1 up; three significant digits below. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value) || Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 1 ? String(Number(value.toFixed(3))) : String(Number(value.toPrecision(3)));
}

export function renderValue(value: unknown, depth = 0): SafeHtml {
  if (value === null || value === undefined) return html`<span class="muted">${String(value)}</span>`;
  if (typeof value === 'number') return html`<code>${formatNumber(value)}</code>`;
  if (typeof value !== 'object') return html`<code>${String(value)}</code>`;
  if (depth >= MAX_DEPTH) return html`<pre class="block">${JSON.stringify(value)}</pre>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return html`<span class="muted">(empty list)</span>`;
    if (value.every(isRecord)) return recordsTable(value, depth);
    return html`<ul class="values">${value.map((item) => html`<li>${renderValue(item, depth + 1)}</li>`)}</ul>`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return html`<span class="muted">(empty)</span>`;
  return html`<table class="kv"><tbody>${entries.map(([key, item]) => html`<tr><th>${key}</th><td>${renderValue(item, depth + 1)}</td></tr>`)}</tbody></table>`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One row per record; a key a record lacks leaves its cell empty. */
function recordsTable(records: ReadonlyArray<Record<string, unknown>>, depth: number): SafeHtml {
  const columns: string[] = [];
  for (const record of records) {
    for (const key of Object.keys(record))
      if (columns.length < MAX_COLUMNS && !columns.includes(key)) columns.push(key);
  }
  return html`<table class="records"><thead><tr>${columns.map((column) => html`<th>${column}</th>`)}</tr></thead><tbody>${records.map(
    (record) =>
      html`<tr>${columns.map((column) => html`<td>${Object.hasOwn(record, column) ? renderValue(record[column], depth + 1) : ''}</td>`)}</tr>`,
  )}</tbody></table>`;
}
