/** The logs section as stored, its panel and its text: the lines written while the request ran, in order, each with the logger that wrote it. */
import { html } from '../../utils/html.js';
import { formatTime } from '../views/layout.js';
import { definePanel } from '../model/panel.js';

export interface LogLine {
  /** `request`, `app` or `console.<method>`; absent in reports written before it was recorded. */
  logger?: string;
  level: string;
  time: number | null;
  message: string;
  /** The line's other fields (`err`, bindings, what the caller passed). */
  context: Record<string, unknown>;
}

export interface LogsSection {
  lines: LogLine[];
  omitted: number;
}

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

/** The command line's lines: level, time and message of each. */
export function logsText(section: LogsSection): string[] {
  return section.lines.map(
    (line) => `${line.level.padEnd(5)} ${line.time === null ? '' : formatTime(line.time)} ${line.message}`,
  );
}
