/** The `x-debug-exception` and `x-debug-exception-file` headers of an error response. */
import { rawUrlEncode } from './rawurlencode.js';
import type { StackFrame } from './stack-trace.js';
import { ThrowView } from './throw-views.js';

const MAX_MESSAGE_CHARACTERS = 2000;

/** The message cut at 2000 characters (code points, so no character is split). */
export function cutMessage(message: string): string {
  if (message.length <= MAX_MESSAGE_CHARACTERS) return message;
  let cut = '';
  let count = 0;
  for (const char of message) {
    if (count++ === MAX_MESSAGE_CHARACTERS) break;
    cut += char;
  }
  return cut;
}

/** The file header of a raise site: a throw path met again (every 404 of one path) has one site object. */
const fileHeaders = new ThrowView<StackFrame, string>();

const fileHeader = (site: StackFrame) => `${rawUrlEncode(site.file)}:${site.line}`;

export function exceptionHeaders(message: string, site: StackFrame | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'x-debug-exception': rawUrlEncode(cutMessage(message)) };
  if (site) {
    headers['x-debug-exception-file'] = fileHeaders.of(site, fileHeader);
  }
  return headers;
}
