/**
 * The exception section as stored, its panel (what was raised, where, a schema 400's
 * refusals, the trace with the project's own source, and its causes) and its text: the raise
 * site, the refusals and the project's frames.
 */
import { html } from '../../utils/html.js';
import type { SchemaViolation } from '../../errors/error-hints.js';
import { hintLines, renderHints } from '../../errors/render-hints.js';
import { fileLine, renderRelated, renderTrace } from '../../errors/render-trace.js';
import type { RelatedErrorView, RelatedErrorsView, TraceLine } from '../../errors/trace-lines.js';
import { keyValueTable } from '../views/layout.js';
import { definePanel } from '../model/panel.js';

/** A frame as stored: its origin (app, kernel, vendor, external), an excerpt and an editor link. */
type TraceFrame = TraceLine;

export interface ExceptionSection extends RelatedErrorsView {
  class: string;
  message: string;
  code: string;
  status: number;
  file: string | null;
  line: number | null;
  /** The editor link of the raise site when VIGIL_IDE is set. */
  link?: string | null;
  /** What decided the answer where no line of the project's did (`routing: …`), shown in place of the site. */
  raisedBy?: string;
  /** The rules of the route's schema the request broke, with the values sent (redacted). */
  violations?: readonly SchemaViolation[];
  trace: readonly TraceFrame[];
}

export const exceptionPanel = definePanel<ExceptionSection>({
  ownHeading: true,
  title: 'Exception',
  absent: 'No exception was raised while handling this request.',
  badge: (section) => html`<span class="bad">${section.class}</span>`,
  render(section) {
    return html`<h2>${section.class}</h2>
<p class="card" id="exception-message">${section.message}</p>
${keyValueTable([
  ['Code', html`<code>${section.code}</code>`],
  ['Status', section.status],
  section.raisedBy
    ? ['Raised by', section.raisedBy]
    : [
        'Raised at',
        section.file ? html`<code>${fileLine(section.file, section.line, section.link)}</code>` : 'unknown',
      ],
])}
${renderHints({ violations: section.violations ?? [] }, 3)}
<h3>Stack trace</h3>
${renderTrace(section.trace, 3)}${renderRelated(section, 3)}`;
  },
});

/** The command line's lines: what was raised, where, the project's own frames, then its members and causes. */
export function exceptionText(section: ExceptionSection): string[] {
  const lines = [`${section.class} (${section.code}, status ${section.status}): ${section.message}`];
  if (section.raisedBy) lines.push(`raised by ${section.raisedBy}`);
  else if (section.file) lines.push(`raised at ${section.file}:${section.line}`);
  lines.push(...hintLines({ violations: section.violations ?? [] }));
  const own = section.trace.filter((frame) => frame.own);
  if (own.length > 0)
    lines.push('project frames:', ...own.map((frame) => `  ${frame.function} ${frame.file}:${frame.line}`));
  return lines.concat(relatedText(section, ''));
}

/** Members first (numbered, their own one step deeper), then the chain of causes, as the text error page lists them. */
function relatedText(related: RelatedErrorsView, indent: string): string[] {
  const lines: string[] = [];
  const members = Array.isArray(related.errors) ? related.errors : [];
  const total = members.length + (related.errorsOmitted ?? 0);
  for (const [index, member] of members.entries())
    lines.push(...relatedErrorText(member, `Error ${index + 1} of ${total}`, indent));
  if (related.errorsOmitted) lines.push(`${indent}${related.errorsOmitted} more errors not shown`);
  if (related.cause) lines.push(...relatedErrorText(related.cause, 'Caused by', indent));
  if (related.truncated) lines.push(`${indent}(deeper causes not shown)`);
  return lines;
}

function relatedErrorText(error: RelatedErrorView, heading: string, indent: string): string[] {
  const lines = [
    `${indent}${heading} ${error.class}: ${error.message}${error.repeated ? ' (shown above already)' : ''}`,
  ];
  if (error.file) lines.push(`${indent}  raised at ${error.file}:${error.line}`);
  if (error.repeated) return lines;
  const deeper = { errors: error.errors, errorsOmitted: error.errorsOmitted, truncated: error.truncated };
  lines.push(...relatedText(deeper, `${indent}  `));
  // A cause follows its error at the same depth: a long chain reads down, not ever deeper.
  if (error.cause) lines.push(...relatedErrorText(error.cause, 'Caused by', indent));
  return lines;
}
