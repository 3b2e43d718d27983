import { findSourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import { isUnder, projectRoot } from "./project-root.js";
const framesByError = /* @__PURE__ */ new WeakMap();
const traceCache = /* @__PURE__ */ new Map();
const TRACE_CACHE_SIZE = 2e3;
function installStackTraces() {
  if (Error.prepareStackTrace === prepareStackTrace) return;
  process.setSourceMapsEnabled(true);
  Error.prepareStackTrace = prepareStackTrace;
}
function prepareStackTrace(error, callSites) {
  let key = "";
  for (const site of callSites) {
    key += `${site.getFileName() ?? site.getEvalOrigin() ?? ""}:${site.getLineNumber()}:${site.getColumnNumber()}
`;
  }
  let trace = traceCache.get(key);
  if (trace === void 0) {
    trace = mapTrace(callSites);
    if (traceCache.size >= TRACE_CACHE_SIZE) traceCache.clear();
    traceCache.set(key, trace);
  }
  if (typeof error === "object" && error !== null) framesByError.set(error, trace.frames);
  return headline(error) + trace.text;
}
function headline(error) {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return "<error>";
  }
}
function mapTrace(callSites) {
  let text = "";
  const frames = [];
  for (const site of callSites) {
    const generatedFile = site.getFileName() ?? "";
    const line = site.getLineNumber() ?? 0;
    const column = site.getColumnNumber() ?? 0;
    let described = String(site);
    let frame = { function: functionName(site), file: toPath(generatedFile), line, column };
    const entry = generatedFile ? findSourceMap(generatedFile)?.findEntry(line - 1, column - 1) : void 0;
    if (entry?.originalSource && entry.originalLine !== void 0 && entry.originalColumn !== void 0) {
      frame = { ...frame, file: toPath(entry.originalSource), line: entry.originalLine + 1, column: entry.originalColumn + 1 };
      described = described.replace(`${generatedFile}:${line}:${column}`, `${frame.file}:${frame.line}:${frame.column}`);
    }
    frames.push(frame);
    text += `
    at ${described}`;
  }
  return { text, frames };
}
function functionName(site) {
  const name = site.getFunctionName() ?? site.getMethodName() ?? "<anonymous>";
  if (site.isConstructor()) return `new ${name}`;
  const type = site.getTypeName();
  return type && !site.isToplevel() && !name.startsWith(`${type}.`) && type !== "Object" ? `${type}.${name}` : name;
}
function toPath(file) {
  return file.startsWith("file://") ? fileURLToPath(file) : file;
}
function framesOf(error) {
  void error.stack;
  return framesByError.get(error) ?? [];
}
function adoptFrames(error, frames) {
  framesByError.set(error, frames);
  let text = headline(error);
  for (const frame of frames) text += `
    at ${frame.function} (${frame.file}:${frame.line}:${frame.column})`;
  error.stack = text;
}
function isProjectFrame(frame) {
  return isUnder(frame.file, projectRoot()) && !frame.file.includes("/node_modules/");
}
function raiseSiteIn(frames) {
  return frames.find(isProjectFrame) ?? frames[0];
}
function raiseSite(error) {
  return raiseSiteIn(framesOf(error));
}
export {
  adoptFrames,
  framesOf,
  installStackTraces,
  isProjectFrame,
  raiseSite,
  raiseSiteIn
};
//# sourceMappingURL=stack-trace.js.map
