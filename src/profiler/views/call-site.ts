/** The "Called from" cell of the HTTP client and Database panels: the application's line, and whether it was recalled. */
import { html } from '../../utils/html.js';
import { RECALLED } from '../activity/sections.js';

export function siteCell({ site, siteRecalled }: { site: string | null; siteRecalled?: true }) {
  if (site === null) return html`<span class="muted">unknown</span>`;
  return siteRecalled ? html`<code>${site}</code> <span class="muted">${RECALLED}</span>` : html`<code>${site}</code>`;
}
