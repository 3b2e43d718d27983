/** The plain-text error: status line, message, and in debug mode what would fix the request, the trace, then the members and causes. */
import type { ChainedError, RelatedErrors } from './error-chain.js';
import type { ErrorView } from './error-view.js';
import { hintLines } from './render-hints.js';

export function renderText(view: ErrorView, debug: boolean): string {
  const statusLine = `${view.status} ${view.title}`;
  if (!debug) return `${statusLine}\n`;
  const trace = view.frames.map((frame) => `  at ${frame.function} (${frame.file}:${frame.line})`).join('\n');
  const related = view.related ? relatedLines(view.related, '') : [];
  const causes = related.length > 0 ? `\n${related.join('\n')}\n` : '';
  const hints = hintLines(view.hints);
  const help = hints.length > 0 ? `${hints.join('\n')}\n\n` : '';
  const report = view.reportUrl ? `\nDebug report: ${view.reportUrl}\n` : '';
  return `${statusLine}\n\n${view.message}\n\n${help}${view.className} (${view.code})\n${trace}\n${causes}${report}`;
}

/** Members first (indented one step deeper for their own), then the chain of causes. */
function relatedLines(related: RelatedErrors, indent: string): string[] {
  const lines: string[] = [];
  const members = related.members ?? [];
  const total = members.length + (related.membersOmitted ?? 0);
  for (const [index, member] of members.entries())
    lines.push(...errorLines(member, `Error ${index + 1} of ${total}`, indent));
  if (related.membersOmitted) lines.push(`${indent}${related.membersOmitted} more errors not shown`);
  if (related.cause) lines.push(...errorLines(related.cause, 'Caused by', indent));
  if (related.truncated) lines.push(`${indent}(deeper causes not shown)`);
  return lines;
}

function errorLines(error: ChainedError, heading: string, indent: string): string[] {
  const lines = [
    `${indent}${heading} ${error.className}: ${error.message}${error.repeated ? ' (shown above already)' : ''}`,
  ];
  if (error.site) lines.push(`${indent}  at ${error.site.function} (${error.site.file}:${error.site.line})`);
  if (error.repeated) return lines;
  lines.push(
    ...relatedLines(
      { members: error.members, membersOmitted: error.membersOmitted, truncated: error.truncated },
      `${indent}  `,
    ),
  );
  if (error.cause) lines.push(...errorLines(error.cause, 'Caused by', indent));
  return lines;
}
