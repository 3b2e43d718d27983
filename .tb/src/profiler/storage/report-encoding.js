import { createHash } from "node:crypto";
import { Redactor } from "../redact.js";
import { boundedSections, boundedTraceJson, cutString } from "./report-bounds.js";
const encodedTraces = /* @__PURE__ */ new WeakMap();
const CREDENTIALS_ONLY = new Redactor();
function encodeReport(report, redactor = CREDENTIALS_ONLY) {
  const { token, time, method, status, ip, duration, collectors } = report;
  const url = cutString(redactor.url(report.url));
  const exception = collectors.exception;
  const trace = exception?.trace;
  if (typeof trace !== "object" || trace === null) {
    return { token, time, method, url, status, ip, duration, data: boundedSections(collectors, redactor), trace: void 0 };
  }
  let encoded = encodedTraces.get(trace);
  if (encoded === void 0) {
    const json = boundedTraceJson(trace);
    encoded = { hash: createHash("sha256").update(json).digest("base64url"), json };
    encodedTraces.set(trace, encoded);
  }
  const data = boundedSections({ ...collectors, exception: { ...exception, trace: void 0 } }, redactor);
  return { token, time, method, url, status, ip, duration, data, trace: encoded };
}
function decodeReport(summary, data, traceJson) {
  const collectors = JSON.parse(data);
  if (traceJson) collectors.exception = { ...collectors.exception, trace: JSON.parse(traceJson) };
  const { token, time, method, url, status, ip, duration } = summary;
  return { token, time, method, url, status, ip, duration, collectors };
}
export {
  decodeReport,
  encodeReport
};
//# sourceMappingURL=report-encoding.js.map
