const PROFILER_PATH = "/_profiler";
function reportUrl(origin, token) {
  return `${origin}${PROFILER_PATH}/${token}`;
}
function isProfilerPath(path) {
  return path === PROFILER_PATH || path.startsWith(`${PROFILER_PATH}/`) || path.startsWith(`${PROFILER_PATH}?`);
}
export {
  PROFILER_PATH,
  isProfilerPath,
  reportUrl
};
//# sourceMappingURL=request-debug.js.map
