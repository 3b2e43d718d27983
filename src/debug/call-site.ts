/**
 * The application's frame that made a call, source-mapped: where a library calls back into vigil (a
 * diagnostics channel, a span processor), it says which line of the application started the work.
 */
import { fileURLToPath } from 'node:url';
import { frameOrigin, type StackFrame } from './stack-trace.js';
import { originalPosition } from './source-maps.js';

/** Deep enough to get from a library's internals (undici's fetch) back to the caller. */
export const DEEP_STACK = 40;
const CACHE_SIZE = 2000;
/** Mapped frames by generated position; null: not the application's. */
const mapped = new Map<string, StackFrame | null>();

/** A function on the stack: V8's `constructorOpt`. */
type Caller = (...args: never[]) => unknown;

function captureSites(depth: number, above: Caller): NodeJS.CallSite[] {
  const savedPrepare = Error.prepareStackTrace;
  const savedLimit = Error.stackTraceLimit;
  try {
    Error.prepareStackTrace = (_error, sites) => sites;
    Error.stackTraceLimit = depth;
    const holder: { stack?: unknown } = {};
    Error.captureStackTrace(holder, above);
    return Array.isArray(holder.stack) ? (holder.stack as NodeJS.CallSite[]) : [];
  } finally {
    Error.prepareStackTrace = savedPrepare;
    Error.stackTraceLimit = savedLimit;
  }
}

/**
 * The application's frame nearest the top of the current stack: undefined for a call made
 * from a library's callback, or deeper than `depth`; `complete` when the whole stack was
 * looked at; `frames`: how many were captured, none when `above` is not on the stack.
 * Frames from `above` up (the caller's own) are neither captured nor counted. Capturing is the cost,
 * hence the bounded depth; only V8's call sites are read, and each position is mapped once.
 */
export function applicationCallSite(
  depth = DEEP_STACK,
  above: Caller = applicationCallSite,
): { frame: StackFrame | undefined; complete: boolean; frames: number } {
  const sites = captureSites(depth, above);
  return { frame: firstApplicationFrame(sites), complete: sites.length < depth, frames: sites.length };
}

function firstApplicationFrame(sites: NodeJS.CallSite[]): StackFrame | undefined {
  for (const site of sites) {
    const file = site.getFileName();
    // Node's internals and dependencies are never the application's: skipped before any mapping.
    if (!file || file.startsWith('node:') || file.includes('/node_modules/')) continue;
    const line = site.getLineNumber() ?? 0;
    const column = site.getColumnNumber() ?? 0;
    const key = `${file}:${line}:${column}`;
    let frame = mapped.get(key);
    if (frame === undefined) {
      frame = mapFrame(site, file, line, column);
      if (mapped.size >= CACHE_SIZE) mapped.clear();
      mapped.set(key, frame);
    }
    if (frame) return frame;
  }
  return undefined;
}

function mapFrame(site: NodeJS.CallSite, generatedFile: string, line: number, column: number): StackFrame | null {
  let frame: StackFrame = {
    function: site.getFunctionName() ?? '<anonymous>',
    file: toPath(generatedFile),
    line,
    column,
  };
  const entry = originalPosition(generatedFile, line - 1, column - 1);
  if (entry?.originalSource && entry.originalLine !== undefined && entry.originalColumn !== undefined) {
    frame = {
      ...frame,
      file: toPath(entry.originalSource),
      line: entry.originalLine + 1,
      column: entry.originalColumn + 1,
    };
  }
  return frameOrigin(frame) === 'app' ? frame : null;
}

function toPath(file: string): string {
  return file.startsWith('file://') ? fileURLToPath(file) : file;
}
