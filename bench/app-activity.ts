/**
 * Target (i): what capturing the application's activity costs. A debug-mode route makes 5
 * PostgreSQL queries (pg through instrumentation-pg and vigilSpanProcessor()) and one fetch
 * to a local upstream; it is served with PROFILER_CAPTURE_APP=1 and =0 in alternating
 * rounds, and the main thread's CPU time per request is compared (from /proc on Linux: the
 * event loop's busy time would count the time the thread waited for a core on a loaded
 * machine; elsewhere that busy time is what there is). The load client and the upstream run
 * in a worker thread, so the main thread's time is the service's alone (its pg client and
 * fetch included).
 *
 *   npm run bench -- --only i [--rounds 3] [--requests 1500]
 */
// First: the tracing set-up is in place before pg is loaded (pg's pool is instrumented too).
import { provider, stopInstrumenting } from '../test/support/tracing.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../src/index.js';
import { startPostgres } from '../test/support/postgres.js';

export interface AppActivityResult {
  onMsPerRequest: number;
  offMsPerRequest: number;
  addedPercent: number;
  /** Each round's added share (on minus off, over off), in order. */
  roundPercents: number[];
  source: 'thread CPU' | 'event loop busy';
}

/** The main thread's CPU time so far (ms), from /proc; undefined where there is none. */
function threadCpuMs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

const CLIENT = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const upstream = http.createServer((req, res) => res.end('{"ok":true}')).listen(0, '127.0.0.1', () => parentPort.postMessage({ upstream: upstream.address().port }));
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
const one = (url) => new Promise((resolve, reject) => http.get(url, { agent }, (res) => { res.resume(); res.on('end', resolve); }).on('error', reject));
parentPort.on('message', async ({ url, requests }) => {
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => { while (next++ < requests) await one(url); }));
  parentPort.postMessage({ done: true });
});`;

export async function runAppActivity({ rounds = 3, requests = 1500 } = {}): Promise<AppActivityResult> {
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  const postgres = await startPostgres();
  const pool = new pg.Pool({ connectionString: await postgres.database('bench'), max: 8 });
  // pg's pool.end() resolves before its clients' sockets close: the server's shutdown at the end can reach one.
  pool.on('error', () => undefined);
  const worker = new Worker(CLIENT, { eval: true });
  const upstream = await new Promise<number>((resolve) =>
    worker.once('message', (message: { upstream: number }) => resolve(message.upstream)),
  );
  const ask = (url: string) =>
    new Promise<void>((resolve) => {
      worker.once('message', () => resolve());
      worker.postMessage({ url, requests });
    });

  const start = async (capture: '1' | '0') => {
    const config = loadConfig({
      TLS: '0',
      LOG_LEVEL: 'silent',
      PROFILER_CAPTURE_APP: capture,
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
    return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}/orders` };
  };
  const on = await start('1');
  const off = await start('0');
  const busy: Record<'on' | 'off', number[]> = { on: [], off: [] };
  try {
    for (const target of [on, off]) await ask(target.url); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const [name, target] of [
        ['on', on],
        ['off', off],
      ] as const) {
        const since = performance.eventLoopUtilization();
        const cpuSince = threadCpuMs();
        await ask(target.url);
        const cpu = threadCpuMs();
        busy[name].push(
          (cpuSince !== undefined && cpu !== undefined
            ? cpu - cpuSince
            : performance.eventLoopUtilization(since).active) / requests,
        );
      }
    }
  } finally {
    await Promise.all([on.app.close(), off.app.close()]);
    await worker.terminate();
    await pool.end();
    await postgres.close();
    stopInstrumenting();
    await provider.shutdown();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const onMs = median(busy.on);
  const offMs = median(busy.off);
  const roundPercents = busy.on.map((on, i) => ((on - busy.off[i]!) / busy.off[i]!) * 100);
  return {
    onMsPerRequest: onMs,
    offMsPerRequest: offMs,
    addedPercent: ((onMs - offMs) / offMs) * 100,
    roundPercents,
    source: threadCpuMs() === undefined ? 'event loop busy' : 'thread CPU',
  };
}
