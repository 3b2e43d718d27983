/** The memory panel: heap and RSS when the request arrived and when its report was made. */
import { html } from '../../../errors/html.js';
import type { MemorySample } from '../../collectors/memory.js';
import type { MemorySection } from '../../collectors/memory.js';
import { formatBytes, keyValueTable } from '../layout.js';
import { definePanel } from './panel.js';

const ROWS: ReadonlyArray<[keyof MemorySample, string]> = [
  ['heapUsed', 'Heap used'],
  ['heapTotal', 'Heap allocated'],
  ['external', 'External (Buffers, native)'],
  ['rss', 'Resident set (RSS)'],
];

export const memoryPanel = definePanel<MemorySection>({
  name: 'memory',
  title: 'Memory',
  badge: (section) => formatBytes(section.end.heapUsed),
  render(section) {
    return html`<h2>Memory</h2>
<p class="muted">Process figures around the request: Node cannot tell which request allocated what. The heap is read for each request; an RSS reading is at most 100 ms old.</p>
<table id="memory"><thead><tr><th></th><th>At start</th><th>At end</th><th>Change</th></tr></thead><tbody>${ROWS.map(([key, label]) => {
      const start = section.start?.[key];
      const end = section.end[key];
      return html`<tr><th>${label}</th><td>${formatBytes(start)}</td><td>${formatBytes(end)}</td><td>${start === undefined ? 'n/a' : formatBytes(end - start)}</td></tr>`;
    })}</tbody></table>
<h3>Process</h3>
${keyValueTable([['Process ID', section.pid], ['Peak RSS since start', formatBytes(section.peakRss)]])}`;
  },
});
