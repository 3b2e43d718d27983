/**
 * An experiment, not a bench target: the least a stored debug 404 needs, in one Fastify
 * hook, to see how close any design can come to (c). It answers `GET /robots.txt` with the
 * bytes vigil sent (the bench's capture, REPLAY as for `targets/fastify-replay.ts`), its
 * token put in, and sends a small JSON report per request to a thread that inserts it
 * into SQLite. No negotiation, CORS, redaction, bounds, collectors or panels: a floor.
 *
 *   REPLAY=replay.json [BATCH=1] [FASTIFY=vigil] [PORT=n] [VAR_DIR=dir] node --import tsx bench/floor-404.ts
 *
 * BATCH=1 posts the reports of one turn of the event loop together, instead of one message
 * per report. FASTIFY=vigil builds Fastify as vigil does (`vigilFastifyOptions`: its logger
 * and log tap, no line per request) and adds a hook that does nothing at each place where
 * the kernel has one on a debug 404's way (kernel-hooks.ts, profiler.ts, toolbar-hook.ts):
 * the floor as a Fastify plugin would meet it; `npm run bench` runs it so, as (h). The
 * SQLite file goes in VAR_DIR (default: the temporary directory). Figures are in
 * bench/NOTES.md ("A floor for the debug 404", "The floor in vigil's Fastify").
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';

interface Replay {
  headers: Record<string, string>;
  body: string;
  key: string;
  cert: string;
}

const replay = JSON.parse(readFileSync(process.env.REPLAY!, 'utf8')) as Replay;
const batched = process.env.BATCH === '1';
const varDir = process.env.VAR_DIR ?? tmpdir();
mkdirSync(varDir, { recursive: true });
// The page cut where the captured token stands; each request's token goes between the pieces.
const pieces = replay.body.split(replay.headers['x-debug-token']!).map((piece) => Buffer.from(piece));

// The store's SQLite driver (node:sqlite or better-sqlite3, as this Node has), loaded in the thread through tsx; reports wait in the port meanwhile.
const writerSource = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.tsxApi).then(({ tsImport }) => tsImport(workerData.driver, workerData.driver)).then(({ openSqlite }) => {
const db = openSqlite(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS reports (token TEXT, url TEXT, status INTEGER, data TEXT)');
const insert = db.prepare('INSERT INTO reports VALUES (?, ?, ?, ?)');
const insertAll = db.transaction((rows) => { for (const row of rows) insert.run(...row); });
let waiting = [];
parentPort.on('message', (message) => {
  if (workerData.batched) return insertAll(message);
  waiting.push(message);
  if (waiting.length === 1) setImmediate(() => { const rows = waiting; waiting = []; insertAll(rows); });
});
});`;
const writer = new Worker(writerSource, {
  eval: true,
  workerData: {
    tsxApi: import.meta.resolve('tsx/esm/api'),
    driver: new URL('../src/profiler/storage/sqlite/sqlite-driver.ts', import.meta.url).href,
    file: join(varDir, `vigil-floor-${process.pid}.sqlite`),
    batched,
  },
});

let counter = 0x100000;
let pending: unknown[][] = [];
const https = { key: replay.key, cert: replay.cert };
const app = process.env.FASTIFY === 'vigil' ? await vigilsFastify() : Fastify({ logger: false, https });

/** Fastify with vigil's options and a do-nothing hook wherever the kernel's hooks stand on a debug 404's way. */
async function vigilsFastify() {
  const { loadConfig } = await import('../src/config/index.js');
  const { vigilFastifyOptions } = await import('../src/fastify-options.js');
  const instance = Fastify(
    vigilFastifyOptions(loadConfig({ APP_ENV: 'dev' }), { https, logOutput: { write: () => true } }),
  );
  // The six onRequest hooks before the kernel's unmatched one, whose place the floor's hook takes.
  for (let i = 0; i < 6; i++) instance.addHook('onRequest', (_request, _reply, done) => done());
  instance.addHook('preParsing', (_request, _reply, payload, done) => done(null, payload));
  instance.addHook('preHandler', (_request, _reply, done) => done());
  instance.addHook('onError', (_request, _reply, _error, done) => done());
  // The profiler's and the toolbar's.
  for (let i = 0; i < 2; i++) instance.addHook('onSend', (_request, _reply, payload, done) => done(null, payload));
  instance.addHook('onResponse', (_request, _reply, done) => done());
  instance.addHook('onRequestAbort', (_request, done) => done());
  return instance;
}
app.addHook('onRequest', (request, reply, done) => {
  const started = performance.now();
  const token = (counter++).toString(16);
  const heap = getHeapStatistics();
  const url = `https://${request.headers.host}${request.url}`;
  const message = `No route found for "${request.method} ${url}"`;
  const parts: Buffer[] = [];
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) parts.push(Buffer.from(token));
    parts.push(pieces[i]!);
  }
  const page = Buffer.concat(parts);
  const headers = {
    ...replay.headers,
    'x-debug-token': token,
    'x-debug-token-link': `https://${request.headers.host}/_profiler/${token}`,
    'x-debug-exception': encodeURIComponent(message),
  };
  reply.code(404).headers(headers).send(page);
  const socket = request.raw.socket as { remotePort?: number; getProtocol?: () => string | null };
  const report = {
    request: {
      method: request.method,
      url,
      headers: request.headers,
      ip: request.ip,
      remotePort: socket.remotePort,
      tls: socket.getProtocol?.(),
    },
    response: { status: 404, headers, size: page.length },
    exception: { class: 'NotFoundHttpError', message, code: 'VIGIL_ERR_NOT_FOUND', status: 404 },
    routing: { path: request.url, matched: null },
    performance: { total: performance.now() - started },
    memory: { heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size },
  };
  const row = [token, url, 404, JSON.stringify(report)];
  if (!batched) writer.postMessage(row);
  else if (pending.push(row) === 1) {
    setImmediate(() => {
      writer.postMessage(pending);
      pending = [];
    });
  }
  done();
});
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`listening on ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
