/**
 * The database panel: every statement the request ran, in order, with its duration, rows
 * and call site; identical statements grouped with their count (the N+1 signal, as in
 * Symfony's Doctrine panel); statements slower than PROFILER_SLOW_QUERY flagged.
 */
import { html } from '../../utils/html.js';
import {
  describeQueries,
  NOT_LOOKED_UP,
  RECALLED_WHY,
  REPEATED_WARNING,
  RUN_BEFORE_SKIP,
  repeatedGroups,
  totalQueryMs,
  type DatabaseSection,
  type StatementEntry,
} from '../activity/sections.js';
import { formatMs, keyValueTable } from '../views/layout.js';
import { siteCell } from '../views/call-site.js';
import { sqlMarkup } from '../views/sql-markup.js';
import { definePanel } from '../model/panel.js';

function calledFrom(statement: StatementEntry) {
  if (statement.siteLookedUp === false) {
    return statement.site === null
      ? html`<span class="muted">not looked up</span>`
      : html`<code>${statement.site}</code> <span class="muted">${NOT_LOOKED_UP}</span>`;
  }
  return siteCell(statement);
}

/** The statement formatted (`sql-markup.ts`); a group's system is its first statement's. */
function statementCell(section: DatabaseSection, text: number, system?: string) {
  const of = system ?? section.statements.find((statement) => statement.text === text)?.system;
  return html`<pre class="sql">${sqlMarkup(section.texts[text] ?? '', of)}</pre>`;
}

const isSlow = (section: DatabaseSection, duration: number | null) => duration !== null && duration > section.slowMs;

export const databasePanel = definePanel<DatabaseSection>({
  title: 'Database',
  absent:
    'No database statement was seen for this request: statements come from OpenTelemetry database spans (add vigilSpanProcessor() to the tracer provider) and from libraries that publish query TracingChannels.',
  badge(section) {
    const count = section.statements.length + section.omitted;
    const marked =
      repeatedGroups(section).some((group) => group.count >= REPEATED_WARNING) ||
      section.statements.some((statement) => isSlow(section, statement.duration));
    return {
      value: count === 0 ? 0 : `${count} in ${formatMs(totalQueryMs(section))}`,
      status: marked ? 'warn' : 'ok',
    };
  },
  summary: (section) => (section.statements.length + section.omitted > 0 ? describeQueries(section) : undefined),
  render(section) {
    if (section.statements.length === 0) {
      return html`<p class="muted">No database statement was seen for this request: statements come from OpenTelemetry database spans (add <code>vigilSpanProcessor()</code> to the tracer provider) and from libraries that publish query TracingChannels.</p>`;
    }
    const groups = repeatedGroups(section);
    const slow = section.statements.filter((statement) => isSlow(section, statement.duration)).length;
    return html`${keyValueTable([
      ['Statements', describeQueries(section)],
      ['Distinct', section.texts.length],
      [
        'Slower than PROFILER_SLOW_QUERY',
        slow === 0
          ? `none (over ${formatMs(section.slowMs)})`
          : html`<span class="warn">${slow} (over ${formatMs(section.slowMs)})</span>`,
      ],
    ])}
${
  groups.length === 0
    ? ''
    : html`<h3>Identical statements</h3>
<table id="identical-statements"><thead><tr><th>Count</th><th>Total</th><th>Statement</th></tr></thead><tbody>${groups.map(
        (group) =>
          html`<tr${group.count >= REPEATED_WARNING ? html` class="repeated"` : ''}><td class="${group.count >= REPEATED_WARNING ? 'warn' : ''}">${group.count} identical</td><td>${formatMs(group.totalMs)}</td><td>${statementCell(section, group.text)}</td></tr>`,
      )}</tbody></table>`
}
<h3>Statements</h3>
<table id="statements"><thead><tr><th>#</th><th>Started</th><th>Duration</th><th>Rows</th><th>Statement</th><th>Called from</th></tr></thead><tbody>${section.statements.map(
      (statement, i) =>
        html`<tr${isSlow(section, statement.duration) ? html` class="slow"` : ''}><td>${i + 1}</td><td>${formatMs(statement.start)}</td><td class="${isSlow(section, statement.duration) ? 'bad' : ''}">${formatMs(statement.duration)}${
          isSlow(section, statement.duration) ? ' slow' : ''
        }${statement.error ? html` <span class="bad">failed</span>` : ''}</td><td>${statement.rows ?? html`<span class="muted">n/a</span>`}</td><td>${statementCell(section, statement.text, statement.system)}<span class="muted">${statement.system}</span></td><td>${calledFrom(
          statement,
        )}</td></tr>`,
    )}</tbody></table>
${section.statements.some((statement) => statement.siteLookedUp === false) ? html`<p class="muted">The call site of a statement that comes right after identical ones from one line (${RUN_BEFORE_SKIP} in this request, or one from a line seen repeating that statement before) is not looked up: taking a stack is what capturing costs. It shows that line when its text is theirs.</p>` : ''}
${section.statements.some((statement) => statement.siteRecalled) ? html`<p class="muted">${RECALLED_WHY}</p>` : ''}
${section.omitted > 0 ? html`<p class="warn">${section.omitted} more statements were not kept (a report keeps 1000).</p>` : ''}`;
  },
});
