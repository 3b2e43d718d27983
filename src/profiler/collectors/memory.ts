/**
 * The memory section: V8 heap and resident set size (RSS) when the request arrived and
 * when its report was collected, and the process's peak RSS so far.
 *
 * Node cannot tell which request allocated what, so these are process figures around the
 * request. The heap is read for each request; RSS costs a system call, so one reading
 * serves every request within 100 ms of it.
 */
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { Collector } from '../request-profile.js';

export interface MemorySample {
  heapUsed: number;
  heapTotal: number;
  external: number;
  rss: number;
}

/** Process figures that cost a system call (8 µs idle, ~80 µs under load, measured): read at most every 100 ms. */
const PROCESS_READING_MS = 100;
let readAt = -Infinity;
let reading = { rss: 0, peakRss: 0 };

function processReading(): { rss: number; peakRss: number } {
  const now = performance.now();
  if (now - readAt >= PROCESS_READING_MS) {
    readAt = now;
    // getrusage reports kilobytes.
    reading = { rss: process.memoryUsage.rss(), peakRss: process.resourceUsage().maxRSS * 1024 };
  }
  return reading;
}

export function memorySample(): MemorySample {
  const heap = getHeapStatistics();
  return { heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size, external: heap.external_memory, rss: processReading().rss };
}

export interface MemorySection {
  start: MemorySample | null;
  end: MemorySample;
  heapDelta: number | null;
  peakRss: number;
  /** The process these figures are of (absent from reports made before it was recorded). */
  pid?: number;
}

export const memoryCollector: Collector = {
  name: 'memory',
  start({ profile }) {
    profile.data.memory = memorySample();
  },
  collect({ profile }): MemorySection {
    const start = profile.data.memory as MemorySample | undefined;
    const end = memorySample();
    return {
      start: start ?? null,
      end,
      heapDelta: start ? end.heapUsed - start.heapUsed : null,
      peakRss: processReading().peakRss,
      pid: process.pid,
    };
  },
};
