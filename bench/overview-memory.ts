/**
 * The overview's memory and store size: 1 M requests over 10,000 distinct URLs of 50 routes,
 * each with two statements and one outgoing call, one in 200 failing with one of 20
 * exceptions, counted by the recorder of one process over 10 minutes of traffic, flushed to
 * a SQLite store every 10 s as the profiler does. Prints the heap before and after, the
 * recorder's unflushed minutes at their largest, and the store's file size.
 *
 *   npm run bench:overview [-- --week]
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countSample, emptyMinute, type OverviewSample } from '../src/profiler/overview/minute-counts.js';
import { MINUTE_MS, OverviewRecorder } from '../src/profiler/overview/overview-recorder.js';
import { summarize } from '../src/profiler/overview/overview-summary.js';
import { HOUR_SPAN, hourOf, type OverviewUpkeep } from '../src/profiler/storage/report-store.js';
import { SqliteReportStore } from '../src/profiler/storage/sqlite/sqlite-store.js';

const REQUESTS = 1_000_000;
const ROUTES = 50;
const URLS = 10_000;
/** Ten minutes of traffic, or with --week the same requests over seven days: the store as its retention holds it. */
const SPAN_MS = process.argv.includes('--week') ? 7 * 24 * 60 * MINUTE_MS : 10 * MINUTE_MS;
const FLUSH_MS = 10_000;

function sampleOf(i: number, time: number): OverviewSample {
  const url = i % URLS;
  const route = url % ROUTES;
  return {
    time,
    method: route % 5 === 0 ? 'POST' : 'GET',
    route: `/api/resource${route}/:id`,
    status: i % 200 === 0 ? 500 : i % 37 === 0 ? 404 : 200,
    durationMs: 1 + ((i * 7919) % 997) / 10,
    token: i % 200 === 0 ? `t${i.toString(16)}` : null,
    statements: [
      { system: 'postgresql', text: `SELECT * FROM table${route} WHERE id = ?`, durationMs: 0.5 + (i % 13) / 10 },
      { system: 'postgresql', text: `UPDATE counters SET n = n + ? WHERE route = ?`, durationMs: 0.3 },
    ],
    calls: [
      { method: 'GET', host: `upstream${route % 8}.internal:443`, durationMs: 5 + (i % 50), failed: i % 101 === 0 },
    ],
    exception:
      i % 200 === 0
        ? {
            fingerprint: `f${i % 20}`,
            className: 'TypeError',
            place: `src/routes/r${i % 20}.ts:12`,
            message: 'x of {n}',
          }
        : null,
  };
}

/** As the profiler's flush asks: minutes before the last whole hour rolled up, a week kept. */
function upkeepAt(now: number): OverviewUpkeep {
  const minute = Math.floor(now / MINUTE_MS);
  return { hourlyBefore: hourOf(minute - HOUR_SPAN), deleteBefore: minute - 7 * 24 * 60 };
}

function heapMiB(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1048576;
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'vigil-overview-bench-'));
  const file = join(directory, 'profiler.sqlite');
  const store = new SqliteReportStore(file);
  await store.open();
  const recorder = new OverviewRecorder();
  const start = Date.now() - SPAN_MS;
  const before = heapMiB();
  let largestUnflushed = 0;
  let flushes = 0;
  let nextFlush = start + FLUSH_MS;
  const began = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const time = start + Math.floor((i / REQUESTS) * SPAN_MS);
    if (time >= nextFlush) {
      largestUnflushed = Math.max(largestUnflushed, JSON.stringify(recorder.unwritten()).length);
      await store.writeOverview('bench', recorder.take(), upkeepAt(time));
      flushes++;
      nextFlush += FLUSH_MS;
    }
    recorder.record(sampleOf(i, time));
  }
  const counting = performance.now() - began;
  await store.writeOverview('bench', recorder.take(), upkeepAt(start + SPAN_MS));
  const after = heapMiB();
  const read = performance.now();
  const total = await store.readOverview(0);
  const summary = summarize('7d', [total]);
  const reading = performance.now() - read;
  await store.close();
  const one = emptyMinute();
  countSample(one, sampleOf(1, 0));
  console.log(
    `overview bench: ${REQUESTS} requests, ${URLS} URLs of ${ROUTES} routes, over ${SPAN_MS / MINUTE_MS} minutes`,
  );
  console.log(
    `  counted in ${Math.round(counting)} ms with ${flushes} flushes: ${((counting * 1000) / REQUESTS).toFixed(2)} µs per request, flushes included`,
  );
  console.log(`  heap: ${before.toFixed(1)} MiB before, ${after.toFixed(1)} MiB after (all flushed)`);
  console.log(`  unflushed counts at their largest: ${(largestUnflushed / 1024).toFixed(0)} KiB as JSON`);
  console.log(`  store file: ${(statSync(file).size / 1048576).toFixed(2)} MiB`);
  console.log(
    `  the whole store read and added up in ${Math.round(reading)} ms: ${summary.requests} requests, ${summary.routes.length} routes shown`,
  );
}

await main();
