/**
 * The memory section, its panel and its text: V8 heap and resident set size (RSS) when
 * the request arrived and when its report was collected, and the process's peak RSS so far.
 * Node cannot tell which request allocated what, so these are process figures around the
 * request.
 */
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { html } from '../../utils/html.js';
import { formatBytes } from '../model/format.js';
import { keyValueTable } from '../views/layout.js';
import { defineCollector } from '../model/collector-unit.js';
import type { CollectorSetup } from './collector-setup.js';

interface MemorySample {
  heapUsed: number;
  heapTotal: number;
  external: number;
  rss: number;
}

/** Process figures that cost a system call, dearer under load: read at most every 100 ms. */
const PROCESS_READING_MS = 100;
let readAt = -Infinity;
let reading = { rss: 0, peakRss: 0 };

/**
 * RSS and peak RSS: the heap is read for each request, but RSS costs a system call, so one
 * reading serves every request within {@link PROCESS_READING_MS} of it.
 */
function processReading(): { rss: number; peakRss: number } {
  const now = performance.now();
  if (now - readAt >= PROCESS_READING_MS) {
    readAt = now;
    // getrusage reports kilobytes.
    reading = { rss: process.memoryUsage.rss(), peakRss: process.resourceUsage().maxRSS * 1024 };
  }
  return reading;
}

function memorySample(): MemorySample {
  const heap = getHeapStatistics();
  return {
    heapUsed: heap.used_heap_size,
    heapTotal: heap.total_heap_size,
    external: heap.external_memory,
    rss: processReading().rss,
  };
}

export interface MemorySection {
  start: MemorySample | null;
  end: MemorySample;
  heapDelta: number | null;
  peakRss: number;
  /** The process these figures are of (absent from reports made before it was recorded). */
  pid?: number;
}

const ROWS: ReadonlyArray<[keyof MemorySample, string]> = [
  ['heapUsed', 'Heap used'],
  ['heapTotal', 'Heap allocated'],
  ['external', 'External (Buffers, native)'],
  ['rss', 'Resident set (RSS)'],
];

export const memoryCollector = defineCollector<MemorySection, CollectorSetup>({
  name: 'memory',
  // The heap, as the report's badge: RSS counts what V8 keeps reserved, and reads much higher.
  toolbar: () => {
    const sample = memorySample();
    return [
      {
        label: 'Memory: V8 heap used',
        value: formatBytes(sample.heapUsed),
        detail: [
          ['Heap used', formatBytes(sample.heapUsed)],
          ['Heap allocated', formatBytes(sample.heapTotal)],
          ['Resident set (RSS)', formatBytes(sample.rss)],
        ],
      },
    ];
  },
  // In production the heap is read when a kept report is made, not at every request's arrival.
  create: ({ production }) => ({
    ...(production ? {} : { start: ({ profile }) => void (profile.data.memory = memorySample()) }),
    collect({ profile }) {
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
  }),
  panel: {
    title: 'Memory',
    badge: (section) => formatBytes(section.end.heapUsed),
    render: (
      section,
    ) => html`<p class="muted">Process figures around the request: Node cannot tell which request allocated what. The heap is read for each request; an RSS reading is at most 100 ms old.</p>
<table id="memory"><thead><tr><th></th><th>At start</th><th>At end</th><th>Change</th></tr></thead><tbody>${ROWS.map(
      ([key, label]) => {
        const start = section.start?.[key];
        const end = section.end[key];
        return html`<tr><th>${label}</th><td>${formatBytes(start)}</td><td>${formatBytes(end)}</td><td>${start === undefined ? 'n/a' : formatBytes(end - start)}</td></tr>`;
      },
    )}</tbody></table>
<h3>Process</h3>
${keyValueTable([
  ['Process ID', section.pid],
  ['Peak RSS since start', formatBytes(section.peakRss)],
])}`,
  },
  text: (section) => [
    `heap used ${formatBytes(section.start?.heapUsed)} -> ${formatBytes(section.end.heapUsed)}, RSS ${formatBytes(section.start?.rss)} -> ${formatBytes(section.end.rss)}, peak RSS ${formatBytes(section.peakRss)}${section.pid === undefined ? '' : `, process ${section.pid}`}`,
  ],
});
