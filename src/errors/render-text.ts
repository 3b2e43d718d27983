/** The plain-text error: status line, message, and in debug mode the trace. */
import type { ErrorView } from './error-view.js';

export function renderText(view: ErrorView, debug: boolean): string {
  const statusLine = `${view.status} ${view.title}`;
  if (!debug) return `${statusLine}\n`;
  const trace = view.frames.map((frame) => `  at ${frame.function} (${frame.file}:${frame.line})`).join('\n');
  const report = view.reportUrl ? `\nDebug report: ${view.reportUrl}\n` : '';
  return `${statusLine}\n\n${view.message}\n\n${view.className} (${view.code})\n${trace}\n${report}`;
}
