function formatTime(epochMs) {
  return new Date(epochMs).toISOString().replace("T", " ").replace("Z", " UTC");
}
function formatMs(ms) {
  if (ms === null || ms === void 0) return "n/a";
  return ms >= 1e3 ? `${(ms / 1e3).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}
function formatBytes(bytes) {
  if (bytes === null || bytes === void 0) return "n/a";
  const sign = bytes < 0 ? "-" : "";
  const size = Math.abs(bytes);
  if (size < 1024) return `${sign}${size} B`;
  if (size < 1024 * 1024) return `${sign}${(size / 1024).toFixed(1)} KiB`;
  return `${sign}${(size / 1024 / 1024).toFixed(1)} MiB`;
}
function formatDuration(ms) {
  const units = [["day", 864e5], ["hour", 36e5], ["minute", 6e4], ["second", 1e3]];
  for (const [unit, size] of units) {
    if (ms % size === 0) {
      const n = ms / size;
      return `${n} ${unit}${n === 1 ? "" : "s"}`;
    }
  }
  return `${ms} ms`;
}
export {
  formatBytes,
  formatDuration,
  formatMs,
  formatTime
};
//# sourceMappingURL=format.js.map
