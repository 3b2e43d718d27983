/**
 * The HTTP client panel: each call the application made, in order, with its answer or its
 * error; then each call's headers, sent and received, and the start of its response body.
 */
import { html, type SafeHtml } from '../../utils/html.js';
import {
  describeCalls,
  RECALLED_WHY,
  totalDuration,
  type CallEntry,
  type HttpClientSection,
} from '../activity/sections.js';
import { formatBytes, formatMs } from '../views/layout.js';
import { siteCell } from '../views/call-site.js';
import { headerTable } from '../views/headers.js';
import { definePanel } from '../model/panel.js';

/** What a call sent and received, folded; open for a call that failed or was answered with an error. */
function exchangeDetails(call: CallEntry, index: number): SafeHtml | string {
  if (call.requestHeaders === undefined && call.responseHeaders === undefined) return '';
  const failed = call.error !== null || (call.status ?? 0) >= 400;
  return html`<details class="call" id="call-${index + 1}"${failed ? html` open` : ''}><summary><b>#${index + 1}</b> ${call.method} <code>${call.url}</code> ${call.error ?? call.status ?? ''}</summary>
<h3>Request headers</h3>
${call.requestHeaders === undefined ? html`<p class="muted">Not seen.</p>` : headerTable(call.requestHeaders)}
${call.responseHeaders === undefined ? '' : html`<h3>Response headers</h3>${headerTable(call.responseHeaders)}`}
${responseBody(call)}</details>`;
}

function responseBody({ responseBody: body, responseHeaders }: CallEntry): SafeHtml | string {
  if (body === undefined) return '';
  const size = body.size === null ? '' : ` (${formatBytes(body.size)})`;
  if (body.kind === 'text' && 'text' in body)
    return html`<h3>Response body${size}</h3><pre class="block response-body">${body.text}</pre>`;
  const type = [responseHeaders?.['content-type']].flat()[0] ?? 'no Content-Type';
  const what = body.kind === 'empty' ? 'No body.' : `A ${body.kind} body (${type})${size}: not shown.`;
  return html`<h3>Response body</h3><p class="muted">${what}</p>`;
}

export const httpClientPanel = definePanel<HttpClientSection>({
  title: 'HTTP client',
  absent:
    'No HTTP call was made while handling this request (fetch, node:http and node:https are seen with no set-up).',
  badge: (section) => ({
    value: section.calls.length + section.omitted,
    status: section.calls.some((call) => call.error !== null || (call.status ?? 0) >= 500) ? 'bad' : 'ok',
  }),
  summary: (section) =>
    section.calls.length + section.omitted > 0
      ? describeCalls(section.calls.length + section.omitted, totalDuration(section.calls))
      : undefined,
  render(section) {
    if (section.calls.length === 0)
      return html`<p class="muted">No HTTP call was made while handling this request (fetch, node:http and node:https are seen with no set-up).</p>`;
    return html`<p>${describeCalls(section.calls.length + section.omitted, totalDuration(section.calls))}</p>
<table id="http-calls"><thead><tr><th>Method</th><th>URL</th><th>Status</th><th>Started</th><th>Duration</th><th>Sent</th><th>Received</th><th>Called from</th></tr></thead><tbody>${section.calls.map(
      (call) =>
        html`<tr><td>${call.method}</td><td><code>${call.url}</code></td><td>${
          call.error === null
            ? call.status === null
              ? html`<span class="muted">no answer yet</span>`
              : html`<span class="${call.status >= 400 ? 'bad' : 'ok'}">${call.status}</span>`
            : html`<span class="bad">${call.error}</span>`
        }</td><td>${formatMs(call.start)}</td><td>${call.duration === null ? html`<span class="muted">still running</span>` : formatMs(call.duration)}</td><td>${formatBytes(call.requestSize)}</td><td>${formatBytes(call.responseSize)}</td><td>${siteCell(
          call,
        )}</td></tr>`,
    )}</tbody></table>
${section.calls.map(exchangeDetails)}
${section.detailsOmitted ? html`<p class="muted">The headers and body of ${section.detailsOmitted} more calls were not kept: a report keeps them for a few calls, those that failed or were answered with an error first.</p>` : ''}
${section.calls.some((call) => call.siteRecalled) ? html`<p class="muted">${RECALLED_WHY}</p>` : ''}
${section.omitted > 0 ? html`<p class="warn">${section.omitted} more calls were not kept (a report keeps 1000).</p>` : ''}`;
  },
});
