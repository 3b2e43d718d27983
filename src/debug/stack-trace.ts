/**
 * Stack traces that point at this project's TypeScript source, cheaply.
 *
 * Node's own source-map support maps every frame of every formatted stack and may read
 * the source file for the first one; on the hot path (a debug 404) that costs more than
 * the rest of the request. Here a throw path is mapped once: its frames are cached under
 * the generated positions, and each error carries its structured frames for renderers.
 */
import { findSourceMap, type SourceMapping } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface StackFrame {
  /** Function as V8 names it (`Foo.bar`, `new Foo`, `<anonymous>`). */
  function: string;
  /** Absolute path of the source file (the `.ts` file when a source map is known). */
  file: string;
  line: number;
  column: number;
}

interface MappedTrace {
  text: string;
  frames: readonly StackFrame[];
}

const framesKey = Symbol('vigil.stackFrames');
const traceCache = new Map<string, MappedTrace>();
const TRACE_CACHE_SIZE = 2000;

type WithFrames = { [framesKey]?: readonly StackFrame[] };

/** Replaces Node's stack formatting with the cached, source-mapped one. Idempotent. */
export function installStackTraces(): void {
  if (Error.prepareStackTrace === prepareStackTrace) return;
  process.setSourceMapsEnabled(true);
  Error.prepareStackTrace = prepareStackTrace;
}

function prepareStackTrace(error: Error, callSites: NodeJS.CallSite[]): string {
  let key = '';
  for (const site of callSites) {
    key += `${site.getFileName() ?? site.getEvalOrigin() ?? ''}:${site.getLineNumber()}:${site.getColumnNumber()}\n`;
  }
  let trace = traceCache.get(key);
  if (trace === undefined) {
    trace = mapTrace(callSites);
    if (traceCache.size >= TRACE_CACHE_SIZE) traceCache.clear();
    traceCache.set(key, trace);
  }
  try {
    (error as WithFrames)[framesKey] = trace.frames;
  } catch {
    // A frozen object keeps its text stack; framesOf() parses it instead.
  }
  return headline(error) + trace.text;
}

function headline(error: unknown): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return '<error>';
  }
}

function mapTrace(callSites: NodeJS.CallSite[]): MappedTrace {
  let text = '';
  const frames: StackFrame[] = [];
  for (const site of callSites) {
    const generatedFile = site.getFileName() ?? '';
    const line = site.getLineNumber() ?? 0;
    const column = site.getColumnNumber() ?? 0;
    let described = String(site);
    let frame: StackFrame = { function: functionName(site), file: toPath(generatedFile), line, column };
    const entry = (generatedFile ? findSourceMap(generatedFile)?.findEntry(line - 1, column - 1) : undefined) as Partial<SourceMapping> | undefined;
    if (entry?.originalSource && entry.originalLine !== undefined && entry.originalColumn !== undefined) {
      frame = { ...frame, file: toPath(entry.originalSource), line: entry.originalLine + 1, column: entry.originalColumn + 1 };
      described = described.replace(`${generatedFile}:${line}:${column}`, `${frame.file}:${frame.line}:${frame.column}`);
    }
    frames.push(frame);
    text += `\n    at ${described}`;
  }
  return { text, frames };
}

function functionName(site: NodeJS.CallSite): string {
  const name = site.getFunctionName() ?? site.getMethodName() ?? '<anonymous>';
  if (site.isConstructor()) return `new ${name}`;
  const type = site.getTypeName();
  return type && !site.isToplevel() && !name.startsWith(`${type}.`) && type !== 'Object' ? `${type}.${name}` : name;
}

function toPath(file: string): string {
  return file.startsWith('file://') ? fileURLToPath(file) : file;
}

/** The frames of an error, innermost first. */
export function framesOf(error: Error): readonly StackFrame[] {
  const stack = error.stack; // formatting attaches the frames
  return (error as WithFrames)[framesKey] ?? parseStack(stack ?? '');
}

/** Frames from a stack text, for errors formatted before {@link installStackTraces}. */
export function parseStack(stack: string): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const match of stack.matchAll(/^\s+at (?:(.*?) \()?(.+?):(\d+):(\d+)\)?$/gm)) {
    frames.push({ function: match[1] ?? '<anonymous>', file: toPath(match[2]!), line: Number(match[3]), column: Number(match[4]) });
  }
  return frames;
}

/** True for frames of this project's own source: not Node internals, not dependencies. */
export function isProjectFrame(frame: StackFrame): boolean {
  return frame.file.startsWith('/') && !frame.file.includes('/node_modules/');
}

/** Where an error was raised, from its frames: the first in the project's source, else the first. */
export function raiseSiteIn(frames: readonly StackFrame[]): StackFrame | undefined {
  return frames.find(isProjectFrame) ?? frames[0];
}

/** Where the error was raised: its first frame in the project's source, else its first frame. */
export function raiseSite(error: Error): StackFrame | undefined {
  return raiseSiteIn(framesOf(error));
}
