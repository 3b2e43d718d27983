/**
 * What PostgreSQL's search indexes cost writes, variant by variant: each round opens a fresh
 * store (which creates the indexes as merged), replaces them with the variant's, and writes
 * 20 000 real debug-404 reports with `store.write(batch, 10000)`, as
 * `bench/store-throughput.ts` does. Variants and rounds alternate; medians are printed.
 *
 *   node --import tsx bench/pg-index-variants.ts
 *   V=none,current,gin-2col ROUNDS=5 B=100 node --import tsx bench/pg-index-variants.ts
 *
 * Figures in bench/NOTES.md ("Writes with the search indexes, second pass").
 */
import { performance } from 'node:perf_hooks';
import { rmSync } from 'node:fs';
import { encodeReport, type EncodedReport } from '../src/profiler/model/report-encoding.js';
import { startKernel } from '../test/support/kernel.js';
import { startPostgres } from '../test/support/postgres.js';
import { postgresStore } from '../test/support/stores.js';

const REPORTS = Number(process.env.N ?? 20000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const KEEP = 10000;
const kernel = await startKernel({ LOG_LEVEL: 'silent' });
const answer = await kernel.app.inject({ url: '/bench/missing?page=2' });
const sample = (await kernel.report(String(answer.headers['x-debug-token'])))!;
await kernel.close();
rmSync(kernel.varDir, { recursive: true, force: true });
const T0 = Date.now();
const encoded: EncodedReport[] = Array.from({ length: REPORTS }, (_, n) =>
  encodeReport({
    ...sample,
    token: n.toString(16).padStart(6, '0'),
    time: T0 + n,
    url: `https://localhost:8443/bench/missing/${n}?page=2`,
    ip: `10.${n % 16}.${(n >> 4) % 256}.${1 + (n % 254)}`,
  }),
);

const DROP =
  'DROP INDEX IF EXISTS vigil_reports_by_url_part, vigil_reports_by_ip_part, vigil_reports_by_status, vigil_reports_by_method';
const BT =
  'CREATE INDEX vigil_reports_by_status ON vigil_reports (status, id); CREATE INDEX vigil_reports_by_method ON vigil_reports (method, id)';
const variants: Record<string, string> = {
  none: DROP,
  current: '',
  btree: `${DROP}; ${BT}`,
  'gin-url+bt': `${DROP}; ${BT}; CREATE INDEX vigil_reports_by_url_part ON vigil_reports USING gin (url gin_trgm_ops)`,
  'gin-2col': `${DROP}; ${BT}; CREATE INDEX vigil_reports_by_url_part ON vigil_reports USING gin (url gin_trgm_ops, ip gin_trgm_ops)`,
  'gin-2col-nofu': `${DROP}; ${BT}; CREATE INDEX vigil_reports_by_url_part ON vigil_reports USING gin (url gin_trgm_ops, ip gin_trgm_ops) WITH (fastupdate = off)`,
  'gist-2col': `${DROP}; ${BT}; CREATE INDEX vigil_reports_by_url_part ON vigil_reports USING gist (url gist_trgm_ops, ip gist_trgm_ops)`,
  'gin-pl64': `ALTER INDEX vigil_reports_by_url_part SET (gin_pending_list_limit = 65536); ALTER INDEX vigil_reports_by_ip_part SET (gin_pending_list_limit = 65536)`,
  'gin-2col-1btree': `${DROP}; CREATE INDEX vigil_reports_by_status ON vigil_reports (status, method, id); CREATE INDEX vigil_reports_by_url_part ON vigil_reports USING gin (url gin_trgm_ops, ip gin_trgm_ops)`,
};
const chosen = (process.env.V ?? Object.keys(variants).join(',')).split(',');
const batches = (process.env.B ?? '100,250').split(',').map(Number);
const pgs = await startPostgres({ durable: true });
const results: Record<string, number[]> = {};
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const batch of batches)
      for (const v of round % 2 ? [...chosen].reverse() : chosen) {
        const dsn = await pgs.database('bench');
        const store = postgresStore(dsn);
        await store.open();
        if (variants[v]) await pgs.query(dsn, variants[v]!);
        const started = performance.now();
        for (let i = 0; i < encoded.length; i += batch) await store.write(encoded.slice(i, i + batch), KEEP);
        const rate = REPORTS / ((performance.now() - started) / 1000);
        await store.close();
        (results[`${v} b${batch}`] ??= []).push(Math.round(rate));
        process.stdout.write(`${v} b${batch}: ${Math.round(rate)}\n`);
      }
  }
} finally {
  await pgs.close();
}
for (const [k, r] of Object.entries(results))
  process.stdout.write(`${k}: median ${[...r].sort((a, b) => a - b)[Math.floor(r.length / 2)]} (${r.join(', ')})\n`);
