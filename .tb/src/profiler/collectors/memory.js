import { performance } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
const PROCESS_READING_MS = 100;
let readAt = -Infinity;
let reading = { rss: 0, peakRss: 0 };
function processReading() {
  const now = performance.now();
  if (now - readAt >= PROCESS_READING_MS) {
    readAt = now;
    reading = { rss: process.memoryUsage.rss(), peakRss: process.resourceUsage().maxRSS * 1024 };
  }
  return reading;
}
function memorySample() {
  const heap = getHeapStatistics();
  return { heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size, external: heap.external_memory, rss: processReading().rss };
}
const memoryCollector = {
  name: "memory",
  start({ profile }) {
    profile.data.memory = memorySample();
  },
  collect({ profile }) {
    const start = profile.data.memory;
    const end = memorySample();
    return {
      start: start ?? null,
      end,
      heapDelta: start ? end.heapUsed - start.heapUsed : null,
      peakRss: processReading().peakRss
    };
  }
};
export {
  memoryCollector,
  memorySample
};
//# sourceMappingURL=memory.js.map
