/** The exception section: class, message, code, status and the trace, with source excerpts of the project's own frames. */
import { framesOf, isProjectFrame, raiseSiteIn, type StackFrame } from '../../debug/stack-trace.js';
import { describeError } from '../../errors/http-errors.js';
import { sourceExcerpt, type SourceLine } from '../../errors/source-excerpt.js';
import type { Collector } from '../request-profile.js';

export interface TraceFrame extends StackFrame {
  /** A frame of this project's source (not Node, not a dependency). */
  own: boolean;
  excerpt: SourceLine[] | null;
}

/** A throw path has the same frames (one cached array) on every request: its trace section is built once. */
const traces = new WeakMap<readonly StackFrame[], TraceFrame[]>();

function traceOf(frames: readonly StackFrame[]): TraceFrame[] {
  let trace = traces.get(frames);
  if (trace === undefined) {
    trace = frames.map((frame) => {
      const own = isProjectFrame(frame);
      return { ...frame, own, excerpt: own ? (sourceExcerpt(frame.file, frame.line) ?? null) : null };
    });
    traces.set(frames, trace);
  }
  return trace;
}

export interface ExceptionSection {
  class: string;
  message: string;
  code: string;
  status: number;
  file: string | null;
  line: number | null;
  trace: TraceFrame[];
}

export const exceptionCollector: Collector = {
  name: 'exception',
  collect({ profile }): ExceptionSection | undefined {
    if (!profile.error) return undefined;
    const described = describeError(profile.error);
    const frames = framesOf(described.error);
    const site = raiseSiteIn(frames);
    return {
      class: described.className,
      message: described.message,
      code: described.code,
      status: described.status,
      file: site?.file ?? null,
      line: site?.line ?? null,
      trace: traceOf(frames),
    };
  },
};
