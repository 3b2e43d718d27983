/**
 * One side of target (i), in a process of its own: the debug-mode route of `app-activity.ts`
 * (5 PostgreSQL queries, one fetch), capture on or off by PROFILER_CAPTURE_APP. The parent
 * gives the database (BENCH_DSN) and the upstream (BENCH_UPSTREAM), and is sent the port.
 */
// First: the tracing set-up is in place before pg is loaded (pg's pool is instrumented too).
import { provider, stopInstrumenting } from '../test/support/tracing.js';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../src/index.js';

const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
const pool = new pg.Pool({ connectionString: process.env.BENCH_DSN, max: 8 });
// pg's pool.end() resolves before its clients' sockets close: the server's shutdown at the end can reach one.
pool.on('error', () => undefined);
const upstream = process.env.BENCH_UPSTREAM;

const config = loadConfig({
  TLS: '0',
  LOG_LEVEL: 'silent',
  PROFILER_CAPTURE_APP: process.env.PROFILER_CAPTURE_APP ?? '1',
  VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-bench-i-')),
});
const app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
await app.register(vigil, { config });
app.get('/orders', async () => {
  for (let i = 0; i < 5; i++) await pool.query('SELECT id FROM generate_series(1, 3) AS id WHERE id = $1', [i]);
  const answer = await fetch(`http://127.0.0.1:${upstream}/prices`);
  return answer.json();
});
await app.listen({ host: '127.0.0.1', port: 0 });
process.send?.({ port: (app.server.address() as { port: number }).port });
process.once('message', async () => {
  await app.close();
  await pool.end();
  stopInstrumenting();
  await provider.shutdown();
  process.exit(0);
});
