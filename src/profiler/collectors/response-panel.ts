/**
 * The response section as stored, its panel (what the client got, a preview of a textual
 * body, or that it left before getting it) and its text: status and headers.
 */
import { STATUS_CODES } from 'node:http';
import { html, type SafeHtml } from '../../utils/html.js';
import type { ResponsePreview } from './response-preview.js';
import { formatBytes, keyValueTable, statusBadge } from '../views/layout.js';
import { headerLines, headerTable } from '../views/headers.js';
import { definePanel } from '../model/panel.js';

export interface ResponseSection {
  status: number;
  headers: Record<string, string | string[]>;
  size: number | null;
  aborted: boolean;
  /** Absent in reports written before it was recorded. */
  preview?: ResponsePreview;
}

export const responsePanel = definePanel<ResponseSection>({
  ownHeading: true,
  title: 'Response',
  badge: (section) => statusBadge(section.status),
  render(section) {
    return html`<h2>Response</h2>
${section.aborted ? html`<p class="bad">The client closed the connection before this response was written.</p>` : ''}
${keyValueTable([
  ['Status', html`${statusBadge(section.status)} ${STATUS_CODES[section.status] ?? ''}`],
  ['Size', section.size === null ? 'not declared (streamed)' : formatBytes(section.size)],
])}
${renderPreview(section)}
<h3>Headers</h3>
${headerTable(section.headers)}`;
  },
});

/** The command line's lines: the headers as sent. */
export function responseText(section: ResponseSection): string[] {
  return headerLines(section.headers);
}

/** Reports written before previews were kept have none: nothing is shown. */
function renderPreview({ preview, headers }: ResponseSection): SafeHtml | string {
  if (preview === undefined) return '';
  switch (preview.kind) {
    case 'text':
      return html`<h3>Body (${formatBytes(preview.size)})</h3><pre class="block" id="response-preview">${preview.text}</pre>`;
    case 'binary':
      return html`<h3>Body</h3><p class="muted">A binary body (${[headers['content-type']].flat()[0] ?? 'no Content-Type'}, ${formatBytes(preview.size)}): not shown.</p>`;
    case 'streamed':
      return html`<h3>Body</h3><p class="muted">A streamed body${preview.size === null ? '' : ` (${formatBytes(preview.size)})`}: not kept.</p>`;
    case 'error-page':
      return html`<h3>Body</h3><p class="muted">The kernel’s error page for the exception${preview.size === null ? '' : ` (${formatBytes(preview.size)})`}: see the Exception panel.</p>`;
    case 'compressed':
      return html`<h3>Body</h3><p class="muted">A compressed body (${formatBytes(preview.size)}): not shown.</p>`;
    default:
      return html`<h3>Body</h3><p class="muted">No body.</p>`;
  }
}
