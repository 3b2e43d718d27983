/**
 * A focused measure of one debug 404 in this process, without sockets or TLS: main-thread
 * CPU and heap bytes allocated per request, through Fastify's `inject` (every hook, the
 * report queued and written). Not part of `npm run bench`; for A/B rounds of one change:
 *
 *   node --min-semi-space-size=64 --import tsx bench/inject-404.ts [--routes] [--requests N]
 *
 * Allocation is the growth of the used heap over batches in which no collection ran (a large
 * young generation keeps most batches free of one); batches with a collection are skipped.
 */
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { createKernel } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';

const { values: flags } = parseArgs({
  options: { routes: { type: 'boolean', default: false }, requests: { type: 'string', default: '20000' } },
});
const requests = Number(flags.requests);
const BATCH = 50;

const config = loadConfig({
  TLS: '0',
  LOG_LEVEL: 'warn',
  VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-inject-')),
  PROFILER_MAX_REPORTS: '5000000',
  PROFILER_MAX_AGE: '30d',
});
const routes = flags.routes ? [(await import('../examples/demo-routes.js')).default] : [];
const kernel = await createKernel({
  config,
  logOutput: { write: () => {} },
  routes,
  routesModule: flags.routes ? 'examples/demo-routes.ts' : undefined,
});
await kernel.app.ready();
// The bench's path, or with routes one whose closest routes have something to explain.
const url = flags.routes ? '/items/abc' : '/robots.txt';
const headers = { accept: '*/*', 'accept-encoding': 'gzip, br, zstd, deflate' };

let collections = 0;
new PerformanceObserver((list) => (collections += list.getEntries().length)).observe({ entryTypes: ['gc'] });

/** Main-thread CPU so far (ms), from /proc: the write thread's is not counted. */
function mainCpuMs(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function batch(): Promise<void> {
  for (let i = 0; i < BATCH; i++) {
    const response = await kernel.app.inject({ method: 'GET', url, headers });
    if (response.statusCode !== 404) throw new Error(`expected a 404, got ${response.statusCode}`);
  }
}

for (let i = 0; i < 2000 / BATCH; i++) await batch();
await kernel.profiler!.writer.flush();

const allocated: number[] = [];
const cpuStart = mainCpuMs();
for (let done = 0; done < requests; done += BATCH) {
  const seen = collections;
  const before = getHeapStatistics().used_heap_size;
  await batch();
  const after = getHeapStatistics().used_heap_size;
  await new Promise((resolve) => setImmediate(resolve)); // gc entries are delivered asynchronously
  if (collections === seen && after > before) allocated.push((after - before) / BATCH);
}
const cpu = mainCpuMs() - cpuStart;
await kernel.app.close();
allocated.sort((a, b) => a - b);
const median = allocated[Math.floor(allocated.length / 2)] ?? NaN;
console.log(
  JSON.stringify({
    url,
    requests,
    mainCpuUsPerRequest: Math.round((cpu * 1000 * 10) / requests) / 10,
    allocatedBytesPerRequest: Math.round(median),
    cleanBatches: allocated.length,
  }),
);
