/**
 * Stack traces that point at this project's TypeScript source, cheaply: Node's own source-map support
 * maps every frame of every formatted stack, which on the hot path (a debug 404) costs more than the
 * rest of the request. Frames come only from V8's call sites (or a worker's own), never from a stack's
 * text, which holds the message and so whatever a client put in it.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isUnder, projectRoot } from './project-root.js';
import { SharedInstall } from '../utils/shared-install.js';
import { ThrowView } from './throw-views.js';
import { originalPosition } from './source-maps.js';

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

/** Kept beside the error rather than on it: a frozen error can have frames too. */
const framesByError = new WeakMap<object, readonly StackFrame[]>();
const traceCache = new Map<string, MappedTrace>();
const TRACE_CACHE_SIZE = 2000;

type PrepareStackTrace = (error: Error, callSites: NodeJS.CallSite[]) => unknown;

/** Instances that asked for frames and have not let go yet; the hook is in place while any has. */
const hook = new SharedInstall(putHookInPlace, takeHookOut);
/** The formatter found in place when the hook went in: Node's, or an APM's or source-map-support's. */
let previous: PrepareStackTrace | undefined;
let sourceMapsWere = false;
/** The hook was removed while another formatter sat on top of it: it stays in that one's chain. */
let buried = false;

/**
 * Records every error's frames, for as long as a holder keeps the returned release
 * function unused: the first holder puts the hook in place, the last release takes it out
 * and gives source maps back their setting. Stack texts stay what the formatter found in
 * place makes of them; with Node's own, this module gives the same text, source-mapped
 * from the cache.
 */
export function installStackTraces(): () => void {
  return hook.hold();
}

function putHookInPlace(): void {
  if (buried) return;
  previous = Error.prepareStackTrace;
  sourceMapsWere = process.sourceMapsEnabled;
  process.setSourceMapsEnabled(true);
  Error.prepareStackTrace = prepareStackTrace;
}

function takeHookOut(): void {
  if (Error.prepareStackTrace === prepareStackTrace) {
    (Error as { prepareStackTrace?: PrepareStackTrace | undefined }).prepareStackTrace = previous;
    process.setSourceMapsEnabled(sourceMapsWere);
  } else {
    // Another formatter went in after this one and calls it: it passes through from now on.
    buried = true;
  }
}

/** Node's own formatter, which this module's text reproduces (source-mapped, cached). */
function isNodeDefault(format: PrepareStackTrace | undefined): boolean {
  return format === undefined || format.name === 'ErrorPrepareStackTrace';
}

function prepareStackTrace(error: Error, callSites: NodeJS.CallSite[]): unknown {
  if (!hook.held) return passOn(error, callSites);
  const trace = mappedTrace(callSites);
  if (typeof error === 'object' && error !== null) framesByError.set(error, trace.frames);
  return isNodeDefault(previous) ? headline(error) + trace.text : previous!(error, callSites);
}

function passOn(error: Error, callSites: NodeJS.CallSite[]): unknown {
  if (previous) return previous(error, callSites);
  let text = headline(error);
  for (const site of callSites) text += `\n    at ${String(site)}`;
  return text;
}

/** A throw path is mapped once: its frames are cached under the generated positions. */
function mappedTrace(callSites: NodeJS.CallSite[]): MappedTrace {
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
  return trace;
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
    // `new Promise (<anonymous>)` and other native frames have no place to show: text only.
    let frame: StackFrame | undefined =
      generatedFile && line > 0
        ? { function: functionName(site), file: toPath(generatedFile), line, column }
        : undefined;
    const entry = frame ? originalPosition(generatedFile, line - 1, column - 1) : undefined;
    if (frame && entry?.originalSource && entry.originalLine !== undefined && entry.originalColumn !== undefined) {
      frame = {
        ...frame,
        file: toPath(entry.originalSource),
        line: entry.originalLine + 1,
        column: entry.originalColumn + 1,
      };
      described = described.replace(
        `${generatedFile}:${line}:${column}`,
        `${frame.file}:${frame.line}:${frame.column}`,
      );
    }
    if (frame) frames.push(frame);
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

/** The frames of an error, innermost first; none for an error whose call sites were never seen. */
export function framesOf(error: Error): readonly StackFrame[] {
  if (hook.held || framesByError.has(error)) {
    void error.stack; // formatting records the frames
    return framesByError.get(error) ?? [];
  }
  // No hook in place (production): one put in for this formatting alone, the text left to the formatter in place.
  const saved = Error.prepareStackTrace;
  Error.prepareStackTrace = (formatted, callSites) => {
    if (formatted === error) framesByError.set(error, mappedTrace(callSites).frames);
    return saved ? saved(formatted, callSites) : passOn(formatted, callSites);
  };
  try {
    void error.stack;
  } finally {
    Error.prepareStackTrace = saved;
  }
  return framesByError.get(error) ?? [];
}

/** The stack text of adopted frames, per frames array: one array is adopted by every 404 of a path. */
const framesText = new ThrowView<readonly StackFrame[], string>();

/** Gives an error frames taken elsewhere (a worker process's, an earlier error's), and a stack text to match. */
export function adoptFrames(error: Error, frames: readonly StackFrame[]): void {
  framesByError.set(error, frames);
  error.stack = headline(error) + framesText.of(frames, stackText);
}

function stackText(frames: readonly StackFrame[]): string {
  let text = '';
  for (const frame of frames) text += `\n    at ${frame.function} (${frame.file}:${frame.line}:${frame.column})`;
  return text;
}

/** True for frames of this project's own source: under its root, not Node internals, not dependencies. */
export function isProjectFrame(frame: StackFrame): boolean {
  return isUnder(frame.file, projectRoot()) && !frame.file.includes('/node_modules/');
}

/**
 * Whose code a frame runs: the application's (`app`), the kernel's own source (`kernel`),
 * a dependency's (`vendor`), or Node's and anything else outside the project (`external`).
 */
export type FrameOrigin = 'app' | 'kernel' | 'vendor' | 'external';

export function frameOrigin(frame: StackFrame): FrameOrigin {
  if (frame.file.includes('/node_modules/')) return 'vendor';
  if (isUnder(frame.file, kernelSourceDirectory())) return 'kernel';
  return isUnder(frame.file, projectRoot()) ? 'app' : 'external';
}

let kernelDirectory: string | undefined;

/**
 * The kernel's source directory (`src/`) as frames name it: two levels above this module,
 * found from a frame of its own, source-mapped like every other, so that a build and a
 * run from source agree. An application in the same repository lives beside it.
 */
export function kernelSourceDirectory(): string {
  kernelDirectory ??= dirname(dirname(ownFile()));
  return kernelDirectory;
}

function ownFile(): string {
  const saved = Error.prepareStackTrace;
  try {
    Error.prepareStackTrace = (_error, callSites) => callSites;
    const callSites = new Error().stack as unknown as NodeJS.CallSite[];
    return mapTrace(callSites.slice(0, 1)).frames[0]?.file ?? fileURLToPath(import.meta.url);
  } catch {
    return fileURLToPath(import.meta.url);
  } finally {
    Error.prepareStackTrace = saved;
  }
}

/**
 * Where an error was raised, from its frames: the first in the project's source, else the
 * first, unless that is the installed kernel's own (a source-mapped file the package does not
 * ship, `node_modules/vigil/src/...`): an error of the kernel's with no frame of the
 * application's has no raise site to show.
 */
export function raiseSiteIn(
  frames: readonly StackFrame[],
  kernelDirectory = kernelSourceDirectory(),
): StackFrame | undefined {
  const site = frames.find(isProjectFrame);
  if (site !== undefined) return site;
  const first = frames[0];
  return first === undefined || isUnder(first.file, kernelDirectory) ? undefined : first;
}

/** Where the error was raised: its first frame in the project's source, else its first frame. */
export function raiseSite(error: Error): StackFrame | undefined {
  return raiseSiteIn(framesOf(error));
}
