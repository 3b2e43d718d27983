/**
 * The exception section: class, message, code, status and the trace with source excerpts of
 * the project's own frames and editor links, then the causes and an AggregateError's members
 * (bounded as on the debug page), each with its class, message, raise site and own frames.
 */
import { framesOf, raiseSiteIn } from '../../debug/stack-trace.js';
import type { EditorLinkFormat } from '../../errors/editor-link.js';
import { relatedErrors } from '../../errors/error-chain.js';
import { describeError } from '../../errors/http-errors.js';
import { relatedView, siteLink, traceLines, type RelatedErrorsView, type TraceLine } from '../../errors/trace-lines.js';
import type { Collector } from '../model/request-profile.js';

/** A frame as stored: its origin (app, kernel, vendor, external), an excerpt and an editor link. */
export type TraceFrame = TraceLine;

export interface ExceptionSection extends RelatedErrorsView {
  class: string;
  message: string;
  code: string;
  status: number;
  file: string | null;
  line: number | null;
  /** The editor link of the raise site when VIGIL_IDE is set. */
  link?: string | null;
  trace: readonly TraceFrame[];
}

/** `editor`: VIGIL_IDE, whose links the report keeps for the panel. */
export function exceptionCollector(editor?: EditorLinkFormat): Collector {
  return {
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
        link: siteLink(site, editor),
        // A throw path has the same frames (one cached array) on every request: its lines are built once.
        trace: traceLines(frames, editor),
        ...relatedView(relatedErrors(described.error, frames), editor),
      };
    },
  };
}
