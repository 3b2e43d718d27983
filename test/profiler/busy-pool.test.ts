/**
 * Issue 41, item 5, over real sockets: when the pool is busy, pg's pool hands a waiting query
 * its client from inside another request's `release()`, so the query's span starts in that
 * other request's code. With OpenTelemetry's HTTP and pg instrumentations, 40 concurrent
 * requests on a pool of 10 connections to the embedded PostgreSQL each find their three
 * statements in their own report, and in no other. The same for statements run from mysql2's
 * callbacks, through its TracingChannels.
 */
// First: the tracing set-up is in place before pg and Fastify are loaded.
import { provider, stopInstrumenting } from '../support/tracing-with-http.js';
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { mkdtempSync } from 'node:fs';
import { Server } from 'node:http';
import { createRequire } from 'node:module';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import type { Report } from '../../src/profiler/model/report.js';
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

/**
 * What mysql2 (3.20 and later) does around its callbacks, over real sockets, since neither
 * mysql2 nor a MySQL server is at hand: `getConnection` traced by `mysql2:pool:connect`,
 * opening a connection from the request that first needs it, and handing a waiting caller its
 * connection from another's `release()` on the next tick; `query` traced by `mysql2:query`,
 * its callback called from the socket's `data` event.
 */
class CallbackPool {
  private readonly free: EchoConnection[] = [];
  private readonly waiting: Array<(error: Error | null, connection: EchoConnection) => void> = [];
  private readonly poolConnect = diagnosticsChannel.tracingChannel('mysql2:pool:connect');
  readonly sockets: Socket[] = [];

  constructor(
    private readonly port: number,
    private readonly limit: number,
  ) {}

  getConnection(callback: (error: Error | null, connection: EchoConnection) => void): void {
    const take = (done: typeof callback) => {
      const connection = this.free.pop();
      if (connection) process.nextTick(() => done(null, connection));
      else if (this.sockets.length < this.limit) {
        const socket = connect(this.port, '127.0.0.1', () => done(null, new EchoConnection(socket)));
        this.sockets.push(socket);
      } else this.waiting.push(done);
    };
    this.poolConnect.traceCallback(take, 0, { database: 'test' }, null, callback);
  }

  release(connection: EchoConnection): void {
    const next = this.waiting.shift();
    if (next) process.nextTick(() => next(null, connection));
    else this.free.push(connection);
  }
}

/** One connection: a socket to a line echo server. */
class EchoConnection {
  private readonly pending: Array<(error: Error | null, rows: unknown) => void> = [];
  private readonly query_ = diagnosticsChannel.tracingChannel('mysql2:query');
  private buffered = '';

  constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      const lines = (this.buffered + chunk).split('\n');
      this.buffered = lines.pop()!;
      for (const line of lines) this.pending.shift()?.(null, [[{ line }]]);
    });
  }

  query(sql: string, callback: (error: Error | null, rows: unknown) => void): void {
    const send = (done: typeof callback) => {
      this.pending.push(done);
      this.socket.write(`${sql}\n`);
    };
    this.query_.traceCallback(send, 0, { query: sql, values: [] }, null, callback);
  }
}

const CALLBACK_REQUESTS = 12;
const CALLBACK_CONNECTIONS = 3;

let postgres: PostgresServer;
let pool: Pool;
let echo: NetServer;
let callbackPool: CallbackPool;
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
  echo = createNetServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  callbackPool = new CallbackPool((echo.address() as { port: number }).port, CALLBACK_CONNECTIONS);
  app.get<{ Params: { n: string } }>('/callbacks/:n', (request, reply) => {
    const tag = tagOf(Number(request.params.n) % REQUESTS);
    // Callback style, as mysql2's own API: the second statement runs from the first one's callback.
    callbackPool.getConnection((_, connection) =>
      connection.query(`SELECT 1 AS ${tag}`, () =>
        connection.query(`SELECT 2 AS ${tag}`, () => {
          callbackPool.release(connection);
          void reply.send({ tag });
        }),
      ),
    );
    return reply;
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
after(async () => {
  await app?.close();
  for (const socket of callbackPool?.sockets ?? []) socket.destroy();
  echo?.close();
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

/** Asks for `paths` all at once; returns each request's tag and report token. */
function askTogether(paths: string[]): Promise<Array<{ tag: string; token: string }>> {
  return Promise.all(
    paths.map(async (path, n) => {
      const answer = await fetch(`${url}${path}`);
      assert.equal(answer.status, 200, await answer.text());
      return { tag: tagOf(n), token: answer.headers.get('x-debug-token')! };
    }),
  );
}

/** Statements of each request in other reports, and missing from its own, each having `each`. */
async function misfiled(answers: Array<{ tag: string; token: string }>, each: number) {
  let elsewhere = 0;
  let missing = 0;
  const wrong: string[] = [];
  for (const { tag, token } of answers) {
    const tags = tagsIn(await report(token));
    const own = tags.filter((found) => found === tag).length;
    const others = tags.length - own;
    elsewhere += others;
    missing += each - Math.min(own, each);
    if (own !== each || others > 0) wrong.push(`${tag}: [${tags.join(', ')}]`);
  }
  const said = `${elsewhere} of ${answers.length * each} statements in another request's report, ${missing} missing from their own`;
  return { elsewhere, missing, said, wrong: wrong.join('\n') };
}

describe("a statement is filed under its parent span's request, whichever request's code started it", () => {
  it(`files each of ${REQUESTS} concurrent requests' ${STATEMENTS_PER_REQUEST} statements on a pool of ${POOL_SIZE} in its own report`, async (t) => {
    // OpenTelemetry's HTTP instrumentation took the server: each request is a server span.
    assert.equal((Server.prototype.emit as { __wrapped?: boolean }).__wrapped, true);
    const answers = await askTogether(Array.from({ length: REQUESTS }, (_, n) => `/tagged/${n}`));
    assert.ok(mostWaiting > 0, 'the pool was never busy: no query waited for a client');
    const { elsewhere, missing, said, wrong } = await misfiled(answers, STATEMENTS_PER_REQUEST);
    t.diagnostic(`${said}; ${mostWaiting} queries waited for a client at most`);
    assert.deepEqual({ elsewhere, missing }, { elsewhere: 0, missing: 0 }, wrong);
  });
});

describe('a statement run from a mysql2 callback is filed under the request that made the call', () => {
  it(`files each of ${CALLBACK_REQUESTS} concurrent requests' 2 statements on ${CALLBACK_CONNECTIONS} connections in its own report`, async (t) => {
    const answers = await askTogether(Array.from({ length: CALLBACK_REQUESTS }, (_, n) => `/callbacks/${n}`));
    const { elsewhere, missing, said, wrong } = await misfiled(answers, 2);
    t.diagnostic(said);
    assert.deepEqual({ elsewhere, missing }, { elsewhere: 0, missing: 0 }, wrong);
  });
});
