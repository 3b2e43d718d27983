/** HTTP headers as a table, and as lines of text: repeated ones on a line each. */
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

/** `name: value`, a line per value; none for a section that lacks them (an older report's). */
export function headerLines(headers: Record<string, string | string[]> | undefined): string[] {
  return Object.entries(headers ?? {}).flatMap(([name, value]) => [value].flat().map((line) => `${name}: ${line}`));
}
