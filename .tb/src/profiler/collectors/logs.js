const LEVELS = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
const OWN_FIELDS = /* @__PURE__ */ new Set(["level", "time", "msg", "pid", "hostname", "reqId"]);
function parseLogLine(line) {
  try {
    const entry = JSON.parse(line);
    const context = {};
    for (const [key, value] of Object.entries(entry)) if (!OWN_FIELDS.has(key)) context[key] = value;
    return {
      level: LEVELS[entry.level] ?? String(entry.level ?? "unknown"),
      time: typeof entry.time === "number" ? entry.time : null,
      message: typeof entry.msg === "string" ? entry.msg : "",
      context
    };
  } catch {
    return { level: "unknown", time: null, message: line.trimEnd(), context: {} };
  }
}
function logsCollector(tap) {
  return {
    name: "logs",
    start({ request }) {
      tap.watch(request.id);
    },
    collect({ request, redactor }) {
      const { lines, omitted } = tap.take(request.id);
      return { lines: lines.map((line) => redactor.fields(parseLogLine(line))), omitted };
    }
  };
}
export {
  logsCollector,
  parseLogLine
};
//# sourceMappingURL=logs.js.map
