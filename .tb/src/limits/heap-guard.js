import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { HeapGuardHttpError, MemoryExhaustedError } from "./limit-errors.js";
class HeapGuard {
  constructor(options) {
    this.options = options;
    this.high = options.high ?? 0.85;
    this.low = options.low ?? 0.7;
    this.timer = setInterval(() => this.sample(), options.intervalMs ?? 25);
    this.timer.unref();
  }
  options;
  high;
  low;
  running = /* @__PURE__ */ new Set();
  tripped = false;
  lastCollection = 0;
  timer;
  collect = exposeGc();
  /** Throws a 503 while the heap is over the mark; called before a matched request's body is read. */
  admit() {
    if (this.tripped) {
      const { used, limit } = heapUse();
      throw new HeapGuardHttpError(`The service is short of memory (heap ${mb(used)} of ${mb(limit)} in use); try again shortly`);
    }
  }
  /** Registers a running in-process handler; the returned function unregisters it. */
  watch(stop) {
    this.running.add(stop);
    return () => this.running.delete(stop);
  }
  close() {
    clearInterval(this.timer);
  }
  sample() {
    const { used, limit } = heapUse();
    if (!this.tripped && used >= limit * this.high) {
      this.tripped = true;
      this.options.log.warn(`heap guard: ${mb(used)} of ${mb(limit)} in use; stopping ${this.running.size} in-process handler(s) and refusing new requests`);
      const reason = new MemoryExhaustedError(limit);
      for (const stop of [...this.running]) stop(reason);
      this.collectGarbage();
    } else if (this.tripped && used < limit * this.low) {
      this.tripped = false;
      this.options.log.warn(`heap guard: ${mb(used)} of ${mb(limit)} in use; accepting requests again`);
    } else if (this.tripped) {
      this.collectGarbage();
    }
  }
  collectGarbage() {
    if (!this.collect || Date.now() - this.lastCollection < 1e3) return;
    this.lastCollection = Date.now();
    this.collect();
  }
}
function heapUse() {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) if (!space.space_name.startsWith("new_")) used += space.space_used_size;
  return { used, limit: getHeapStatistics().heap_size_limit - YOUNG_GENERATION_RESERVE };
}
const YOUNG_GENERATION_RESERVE = 3 * semiSpaceMb() * 1024 * 1024;
function semiSpaceMb() {
  const flags = [...process.env.NODE_OPTIONS?.split(/\s+/) ?? [], ...process.execArgv];
  const flag = flags.findLast((argument) => /^--max[-_]semi[-_]space[-_]size=\d+$/.test(argument));
  return flag ? Number(flag.split("=")[1]) : 16;
}
function mb(bytes) {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}
function exposeGc() {
  const existing = globalThis.gc;
  if (existing) return existing;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc");
  } catch {
    return void 0;
  }
}
export {
  HeapGuard
};
//# sourceMappingURL=heap-guard.js.map
