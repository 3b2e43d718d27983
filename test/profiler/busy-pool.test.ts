/**
 * Issue 41, item 5, over real sockets: when the pool is busy, pg's pool hands a waiting query
 * its client from inside another request's `release()`, so the query's span starts in that
 * other request's code. With OpenTelemetry's HTTP and pg instrumentations, 40 concurrent
 * requests on a pool of 10 connections to the embedded PostgreSQL each find their three
 * statements in their own report, and in no other.
 */
// First: the tracing set-up is in place before pg and Fastify are loaded.
import { provider, stopInstrumenting } from '../support/tracing-with-http.js';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import type { Report } from '../../src/profiler/report.js';
import { startPostgres, type PostgresServer } from '../support/postgres.js';

const pg = createRequire(import.meta.url)('pg') as typeof import('pg');

const REQUESTS = 40;
const POOL_SIZE = 10;
const STATEMENTS_PER_REQUEST = 3;

/**
 * The request's mark in its statements: letters in a column alias, which survives statement
 * text whose literals are replaced by `?`.
 */
const tagOf = (n: number) => `req_${String.fromCharCode(97 + Math.floor(n / 26), 97 + (n % 26))}`;
const TAG = /\breq_[a-z]{2}\b/g;

interface DatabaseSection {
  texts: string[];
  statements: Array<{ text: number }>;
}

let postgres: PostgresServer;
let pool: Pool;
let app: FastifyInstance;
let url: string;
/** The most queries seen waiting for a client: the pool was busy when above 0. */
let mostWaiting = 0;

before(async () => {
  postgres = await startPostgres();
  pool = new pg.Pool({ connectionString: await postgres.database('busy_pool'), max: POOL_SIZE });
  // pg's pool.end() resolves before its clients' sockets close: the server's shutdown in `after` can reach one.
  pool.on('error', () => undefined);
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-pool-')) });
  app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get<{ Params: { n: string } }>('/tagged/:n', async (request) => {
    const n = Number(request.params.n);
    if (!Number.isInteger(n) || n < 0 || n >= REQUESTS) throw new Error('no such request');
    const tag = tagOf(n);
    const first = pool.query(`SELECT pg_sleep(0.002) AS ${tag}`);
    mostWaiting = Math.max(mostWaiting, pool.waitingCount);
    await first;
    await pool.query(`SELECT $1::text AS ${tag}`, ['value']);
    await pool.query(`SELECT count(*) AS ${tag} FROM generate_series(1, 3)`);
    return { tag };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
after(async () => {
  await app?.close();
  await pool?.end();
  await postgres?.close();
  stopInstrumenting();
  await provider.shutdown();
});

async function report(token: string): Promise<Report> {
  const profiler = app.vigil.profiler!;
  await profiler.writer.flush();
  const stored = await profiler.store.read(token);
  if (!stored) throw new Error(`no report stored under ${token}`);
  return stored;
}

/** The tags of the statements in a report, one per statement. */
function tagsIn(stored: Report): string[] {
  const section = stored.collectors.database as DatabaseSection | undefined;
  if (section === undefined) return [];
  return section.statements.flatMap((statement) => section.texts[statement.text]!.match(TAG) ?? []);
}

describe("a statement is filed under its parent span's request, whichever request's code started it", () => {
  it(`files each of ${REQUESTS} concurrent requests' ${STATEMENTS_PER_REQUEST} statements on a pool of ${POOL_SIZE} in its own report`, async (t) => {
    // OpenTelemetry's HTTP instrumentation took the server: each request is a server span.
    assert.equal((Server.prototype.emit as { __wrapped?: boolean }).__wrapped, true);
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, n) => {
        const answer = await fetch(`${url}/tagged/${n}`);
        assert.equal(answer.status, 200, await answer.text());
        return { tag: tagOf(n), token: answer.headers.get('x-debug-token')! };
      }),
    );
    assert.ok(mostWaiting > 0, 'the pool was never busy: no query waited for a client');
    let elsewhere = 0;
    let missing = 0;
    const wrong: string[] = [];
    for (const { tag, token } of answers) {
      const tags = tagsIn(await report(token));
      const own = tags.filter((found) => found === tag).length;
      const others = tags.length - own;
      elsewhere += others;
      missing += STATEMENTS_PER_REQUEST - Math.min(own, STATEMENTS_PER_REQUEST);
      if (own !== STATEMENTS_PER_REQUEST || others > 0) wrong.push(`${tag}: [${tags.join(', ')}]`);
    }
    const total = REQUESTS * STATEMENTS_PER_REQUEST;
    t.diagnostic(
      `${elsewhere} of ${total} statements in another request's report, ${missing} missing from their own; ` +
        `${mostWaiting} queries waited for a client at most`,
    );
    assert.deepEqual({ elsewhere, missing }, { elsewhere: 0, missing: 0 }, wrong.join('\n'));
  });
});
