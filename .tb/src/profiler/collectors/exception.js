import { framesOf, isProjectFrame, raiseSiteIn } from "../../debug/stack-trace.js";
import { describeError } from "../../errors/http-errors.js";
import { sourceExcerpt } from "../../errors/source-excerpt.js";
const traces = /* @__PURE__ */ new WeakMap();
function traceOf(frames) {
  let trace = traces.get(frames);
  if (trace === void 0) {
    trace = frames.map((frame) => {
      const own = isProjectFrame(frame);
      return { ...frame, own, excerpt: own ? sourceExcerpt(frame.file, frame.line) ?? null : null };
    });
    traces.set(frames, trace);
  }
  return trace;
}
const exceptionCollector = {
  name: "exception",
  collect({ profile }) {
    if (!profile.error) return void 0;
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
      trace: traceOf(frames)
    };
  }
};
export {
  exceptionCollector
};
//# sourceMappingURL=exception.js.map
