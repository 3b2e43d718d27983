/** The logs panel: the lines written while the request ran, in order, each with the logger that wrote it. */
import { html } from '../../utils/html.js';
import type { LogsSection } from './logs.js';
import { formatTime } from '../views/layout.js';
import { definePanel } from '../model/panel.js';

export const logsPanel = definePanel<LogsSection>({
  ownHeading: true,
  title: 'Logs',
  badge: (section) =>
    html`<span class="${section.lines.some((line) => line.level === 'error' || line.level === 'fatal') ? 'bad' : ''}">${section.lines.length + section.omitted}</span>`,
  render(section) {
    const body =
      section.lines.length === 0
        ? html`<p class="muted">No log line was written for this request (lines below LOG_LEVEL are not written).</p>`
        : html`<table id="log-lines"><thead><tr><th>Logger</th><th>Level</th><th>Time</th><th>Message</th><th>Context</th></tr></thead><tbody>${section.lines.map(
            // Reports written before the logger was recorded kept the request logger's lines only.
            (line) =>
              html`<tr class="level-${line.level}"><td>${line.logger ?? 'request'}</td><td>${line.level}</td><td>${line.time === null ? '' : formatTime(line.time)}</td><td>${line.message}</td><td>${
                Object.keys(line.context).length > 0
                  ? html`<pre class="block">${JSON.stringify(line.context, null, 2)}</pre>`
                  : ''
              }</td></tr>`,
          )}</tbody></table>`;
    return html`<h2>Logs</h2>${body}${section.omitted > 0 ? html`<p class="warn">${section.omitted} more lines were not kept.</p>` : ''}`;
  },
});
