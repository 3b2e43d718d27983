/** A table of HTTP headers, repeated ones on a line each. */
import { html, type SafeHtml } from '../../utils/html.js';
import { keyValueTable } from './layout.js';

export function headerTable(headers: Record<string, string | string[]>): SafeHtml {
  return keyValueTable(
    Object.entries(headers).map(
      ([name, value]) =>
        [name, html`<code>${[value].flat().map((line, i) => html`${i > 0 ? html`<br>` : ''}${line}`)}</code>`] as const,
    ),
    'No headers',
  );
}
