/**
 * The exception collector: class, message, code, status and the trace with source excerpts of
 * the project's own frames and editor links, then the causes and an AggregateError's members
 * (bounded as on the debug page), each with its class, message, raise site and own frames,
 * and a schema 400's refusals.
 */
import { framesOf, raiseSiteIn } from '../../debug/stack-trace.js';
import { relatedErrors } from '../../errors/error-chain.js';
import { debugAidsOf, describeError } from '../../errors/http-errors.js';
import { relatedView, siteLink, traceLines } from '../../errors/trace-lines.js';
import { defineCollector } from '../model/collector-unit.js';
import type { CollectorSetup } from './collector-setup.js';
import { exceptionPanel, exceptionText, type ExceptionSection } from './exception-panel.js';

export type { ExceptionSection } from './exception-panel.js';

/** What names an error's group (its class, message and raise site), without its trace and causes. */
export type RaisedError = Pick<ExceptionSection, 'class' | 'message' | 'file' | 'line'>;

/**
 * The class, message and raise site of `error`, as the exception section gives them: what the
 * overview counts a failure not kept under, for a fraction of the section's cost (no excerpt is read).
 */
export function raisedError(error: Error): RaisedError {
  const described = describeError(error);
  const site = raiseSiteIn(framesOf(described.error));
  return { class: described.className, message: described.message, file: site?.file ?? null, line: site?.line ?? null };
}

export const exceptionCollector = defineCollector<ExceptionSection, CollectorSetup>({
  name: 'exception',
  panel: exceptionPanel,
  text: exceptionText,
  // `editor`: VIGIL_IDE, whose links the report keeps for the panel.
  create: ({ editor }) => ({
    collect({ profile }): ExceptionSection | undefined {
      if (!profile.error) return undefined;
      const described = describeError(profile.error);
      const frames = framesOf(described.error);
      const site = raiseSiteIn(frames);
      const { raisedBy, hints } = debugAidsOf(described.error);
      return {
        class: described.className,
        message: described.message,
        code: described.code,
        status: described.status,
        file: site?.file ?? null,
        line: site?.line ?? null,
        link: siteLink(site, editor),
        ...(raisedBy === undefined ? {} : { raisedBy }),
        // A 404's near routes are the routing panel's, explained against the routes when read.
        ...(hints?.violations?.length ? { violations: hints.violations } : {}),
        // A throw path has the same frames (one cached array) on every request: its lines are built once.
        trace: traceLines(frames, editor),
        ...relatedView(relatedErrors(described.error, frames), editor),
      };
    },
  }),
});
