/** The HTTP client panel: each call the application made, in order, with its answer or its error. */
import { html } from '../../utils/html.js';
import { describeCalls, RECALLED_WHY, totalDuration, type HttpClientSection } from '../activity/sections.js';
import { formatBytes, formatMs } from '../views/layout.js';
import { siteCell } from '../views/call-site.js';
import { definePanel } from '../model/panel.js';

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
${section.calls.some((call) => call.siteRecalled) ? html`<p class="muted">${RECALLED_WHY}</p>` : ''}
${section.omitted > 0 ? html`<p class="warn">${section.omitted} more calls were not kept (a report keeps 1000).</p>` : ''}`;
  },
});
