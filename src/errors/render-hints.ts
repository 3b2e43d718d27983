/** The hints of a debug answer as HTML (the debug page, the report's exception panel) and as text. */
import type { ErrorHints } from './error-hints.js';
import { html, type SafeHtml } from '../utils/html.js';

/** "Did you mean" and the schema's refusals, each a section of its own; empty when there is nothing. */
export function renderHints(hints: ErrorHints | undefined, level: 2 | 3): SafeHtml {
  const heading = (text: string) => (level === 2 ? html`<h2>${text}</h2>` : html`<h3>${text}</h3>`);
  const near = hints?.nearRoutes ?? [];
  const violations = hints?.violations ?? [];
  return html`${
    near.length > 0
      ? html`<section id="near-routes">${heading('Did you mean')}<ul>${near.map(
          (route) => html`<li><code>${route.methods.join('|')} ${route.path}</code></li>`,
        )}</ul></section>`
      : ''
  }${
    violations.length > 0
      ? html`<section id="schema-violations">${heading('What the schema refused')}<table><thead><tr><th>In</th><th>Path</th><th>Rule</th><th>Value sent</th></tr></thead><tbody>${violations.map(
          (violation) =>
            html`<tr><td>${violation.in}</td><td><code>${violation.path}</code></td><td><code>${violation.rule}</code></td><td>${violation.value === undefined ? html`<span class="muted">none</span>` : html`<code>${violation.value}</code>`}</td></tr>`,
        )}</tbody></table></section>`
      : ''
  }`;
}

/** The hints as lines of text (`text/plain` answers, the command line). */
export function hintLines(hints: ErrorHints | undefined): string[] {
  const lines: string[] = [];
  const near = hints?.nearRoutes ?? [];
  if (near.length > 0)
    lines.push(`Did you mean: ${near.map((route) => `${route.methods.join('|')} ${route.path}`).join(', ')}`);
  for (const violation of hints?.violations ?? [])
    lines.push(
      `Schema: ${violation.in} ${violation.path}: ${violation.rule}${violation.value === undefined ? '' : `, sent ${violation.value}`}`,
    );
  return lines;
}
