import { monitorEventLoopDelay, performance } from "node:perf_hooks";
const STAGE_OF = [
  ["start", "routing"],
  ["parsing", "body"],
  ["handler", "handler"],
  ["error", "rendering"],
  ["send", "sending"]
];
function stageDurations(marks) {
  const reached = STAGE_OF.filter(([mark]) => marks[mark] !== void 0);
  const stages = {};
  reached.forEach(([mark, stage], i) => {
    const next = i + 1 < reached.length ? marks[reached[i + 1][0]] : marks.end;
    if (next !== void 0) stages[stage] = round(next - marks[mark]);
  });
  return stages;
}
function round(ms) {
  return Math.round(ms * 1e3) / 1e3;
}
const DELAY_RESOLUTION_MS = 10;
const FIRST_WINDOW_MS = 100;
class DelayMonitor {
  histogram = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  last = null;
  windowStart = performance.now();
  timer;
  constructor(windowMs = 1e3) {
    this.histogram.enable();
    this.timer = setTimeout(() => {
      this.rotate();
      this.timer = setInterval(() => this.rotate(), windowMs).unref();
    }, FIRST_WINDOW_MS).unref();
  }
  /** The last window's figures: reading the histogram for every report would cost more than the rest of it. */
  latest() {
    return this.last;
  }
  close() {
    clearTimeout(this.timer);
    clearInterval(this.timer);
    this.histogram.disable();
  }
  rotate() {
    this.last = this.snapshot();
    this.histogram.reset();
    this.windowStart = performance.now();
  }
  snapshot() {
    const h = this.histogram;
    if (h.count === 0) return null;
    const ms = (ns) => round(Math.max(0, ns / 1e6 - DELAY_RESOLUTION_MS));
    return { windowMs: Math.round(performance.now() - this.windowStart), mean: ms(h.mean), p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
  }
}
function performanceCollector() {
  let delays = new DelayMonitor();
  return {
    name: "performance",
    start({ profile }) {
      profile.data.performance = performance.eventLoopUtilization();
    },
    collect({ profile }) {
      const { marks } = profile;
      const since = profile.data.performance;
      return {
        total: marks.end === void 0 ? null : round(marks.end - marks.start),
        stages: stageDurations(marks),
        // Share of the request's lifetime the loop spent running code (this request's or others').
        eventLoopUtilization: since ? round(performance.eventLoopUtilization(since).utilization) : null,
        eventLoopDelay: delays?.latest() ?? null
      };
    },
    close() {
      delays?.close();
      delays = void 0;
    }
  };
}
export {
  performanceCollector,
  stageDurations
};
//# sourceMappingURL=performance.js.map
