/**
 * The memory section: V8 heap and resident set size (RSS) when the request arrived and
 * when its report was collected, and the process's peak RSS so far.
 *
 * Node cannot tell which request allocated what, so these are process figures around the
 * request. Reading RSS costs a system call (~8 µs), so one reading serves every request
 * that starts or ends within the same millisecond; the heap is read for each.
 */
import { getHeapStatistics } from 'node:v8';
import type { Collector } from '../request-profile.js';

export interface MemorySample {
  heapUsed: number;
  heapTotal: number;
  external: number;
  rss: number;
}

let rssReadAt = -1;
let rssValue = 0;

function rss(): number {
  const now = Date.now();
  if (now !== rssReadAt) {
    rssReadAt = now;
    rssValue = process.memoryUsage.rss();
  }
  return rssValue;
}

export function memorySample(): MemorySample {
  const heap = getHeapStatistics();
  return { heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size, external: heap.external_memory, rss: rss() };
}

export interface MemorySection {
  start: MemorySample | null;
  end: MemorySample;
  heapDelta: number | null;
  peakRss: number;
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
      // getrusage reports kilobytes.
      peakRss: process.resourceUsage().maxRSS * 1024,
    };
  },
};
