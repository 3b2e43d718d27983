/** The exception section: class, message, code, status and the trace, with source excerpts of the project's own frames. */
import { framesOf, isProjectFrame } from '../../debug/stack-trace.js';
import { describeError } from '../../errors/http-errors.js';
import { sourceExcerpt } from '../../errors/source-excerpt.js';
import type { Collector } from '../request-profile.js';

export const exceptionCollector: Collector = {
  name: 'exception',
  collect({ profile }) {
    if (!profile.error) return undefined;
    const described = describeError(profile.error);
    const frames = framesOf(described.error);
    const site = frames.find(isProjectFrame) ?? frames[0];
    return {
      class: described.className,
      message: described.message,
      code: described.code,
      status: described.status,
      file: site?.file ?? null,
      line: site?.line ?? null,
      trace: frames.map((frame) => ({
        ...frame,
        own: isProjectFrame(frame),
        excerpt: isProjectFrame(frame) ? (sourceExcerpt(frame.file, frame.line) ?? null) : null,
      })),
    };
  },
};
