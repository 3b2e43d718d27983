/**
 * Issue 43, item 6 and the end of item 4, over real sockets: ioredis's and node-redis's
 * commands reach the Database panel through their TracingChannels with no set-up, grouped
 * and without their arguments; mysql2's `query()` statements that differ by their values
 * group as one; a statement seen both by an OpenTelemetry span and by mysql2's channel is
 * kept once. Neither library nor a server is at hand: each channel is published as the
 * library does (the context shapes of ioredis's `lib/Redis.ts` `_buildCommandContext` and
 * node-redis's `packages/client/lib/client/index.ts` `#commandTraceContext`), around a round
 * trip to a line echo server.
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { mkdtempSync } from 'node:fs';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions, vigilSpanProcessor } from '../../src/index.js';
import type { Report } from '../../src/profiler/model/report.js';

interface DatabaseSection {
  texts: string[];
  statements: Array<{ text: number; system: string; rows: number | null; site: string | null }>;
}

/** One socket to the echo server: each line sent is answered by itself. */
class EchoLine {
  private readonly pending: Array<(line: string) => void> = [];
  private buffered = '';

  constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      const lines = (this.buffered + chunk).split('\n');
      this.buffered = lines.pop()!;
      for (const line of lines) this.pending.shift()?.(line);
    });
  }

  ask(line: string): Promise<string> {
    return new Promise((resolve) => {
      this.pending.push(resolve);
      this.socket.write(`${line}\n`);
    });
  }
}

const ioredisCommand = diagnosticsChannel.tracingChannel('ioredis:command');
const nodeRedisCommand = diagnosticsChannel.tracingChannel('node-redis:command');
const mysqlQuery = diagnosticsChannel.tracingChannel('mysql2:query');

/** ioredis's `sendCommand`: the name as called, the args after it, a key kept by ioredis's sanitizer. */
function ioredisGet(line: EchoLine, key: string): Promise<string> {
  return ioredisCommand.tracePromise(() => line.ask(`get ${key}`), {
    command: 'get',
    args: [key],
    database: 0,
    serverAddress: '127.0.0.1',
    serverPort: 6379,
  });
}

/** node-redis's `sendCommand`: the name upper-cased, args starting with it, a value past the allowed ones as `?`. */
function nodeRedisHset(line: EchoLine, key: string, field: string, value: string): Promise<string> {
  return nodeRedisCommand.tracePromise(() => line.ask(`HSET ${key} ${field} ${value}`), {
    command: 'HSET',
    args: ['HSET', key, field, '?'],
    database: 0,
    serverAddress: '127.0.0.1',
    serverPort: 6379,
    clientId: 'client-1',
  });
}

/** mysql2's `query()` with values: the context's `query` is the statement with the values written in. */
function mysqlQueryWithValues(line: EchoLine, sql: string): Promise<unknown> {
  return mysqlQuery.tracePromise(async () => [[{ echoed: await line.ask(sql) }]], { query: sql, values: [] });
}

const tracing = new NodeTracerProvider({ spanProcessors: [vigilSpanProcessor()] });
const tracer = tracing.getTracer('mysql2-instrumentation-like');

let echo: NetServer;
let line: EchoLine;
let app: FastifyInstance;
let url: string;

before(async () => {
  echo = createNetServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const port = (echo.address() as { port: number }).port;
  line = new EchoLine(
    await new Promise<Socket>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
    }),
  );
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-data-')) });
  app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get('/redis', async () => {
    for (const user of [1, 2, 3]) await ioredisGet(line, `session:secret-key-${user}`);
    await nodeRedisHset(line, 'user:secret-key-4', 'email', 'secret-value@example.com');
    return 'ran';
  });
  app.get('/mysql/values', async () => {
    for (const id of [7, 8, 9])
      await mysqlQueryWithValues(line, `SELECT name FROM users WHERE id = ${id} AND token = 'tok-${id}'`);
    return 'ran';
  });
  app.get('/mysql/traced', async () => {
    // As @opentelemetry/instrumentation-mysql2 does: a span around the call, which publishes on the channel.
    for (const id of [1, 2]) {
      const sql = `SELECT name FROM users WHERE id = ${id}`;
      const span = tracer.startSpan('mysql.query', { attributes: { 'db.system': 'mysql', 'db.statement': sql } });
      await mysqlQueryWithValues(line, sql);
      span.end();
    }
    await mysqlQueryWithValues(line, 'SELECT 1 AS untraced');
    return 'ran';
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
after(async () => {
  await app?.close();
  line?.socket.destroy();
  echo?.close();
  await tracing.shutdown();
});

async function databaseOf(path: string): Promise<{ section: DatabaseSection; stored: string }> {
  const answer = await fetch(`${url}${path}`);
  assert.equal(answer.status, 200, await answer.text());
  const profiler = app.vigil.profiler!;
  await profiler.writer.flush();
  const report: Report | undefined = await profiler.store.read(answer.headers.get('x-debug-token')!);
  assert.ok(report, 'the report is stored');
  return { section: report.collectors.database as DatabaseSection, stored: JSON.stringify(report) };
}

/** Each statement as `system text`, in order. */
const listed = (section: DatabaseSection) =>
  section.statements.map((statement) => `${statement.system} ${section.texts[statement.text]}`);

describe('ioredis and node-redis commands appear in the Database panel with no set-up, arguments never kept', () => {
  it('keeps each command as its name and a ? per argument, grouped, with its call site', async () => {
    const { section, stored } = await databaseOf('/redis');
    assert.deepEqual(listed(section), ['redis GET ?', 'redis GET ?', 'redis GET ?', 'redis HSET ? ? ?']);
    assert.deepEqual(section.texts, ['GET ?', 'HSET ? ? ?'], 'the three GETs share one text');
    assert.match(section.statements[0]!.site ?? '', /data-channels\.test\.(ts|js):\d+$/);
    assert.doesNotMatch(stored, /secret-key|secret-value/);
  });
});

describe("mysql2's query() statements group once their values are out of the text", () => {
  it('groups three query() calls that differ only by their values as one repeated statement', async () => {
    const { section, stored } = await databaseOf('/mysql/values');
    assert.deepEqual(section.texts, ['SELECT name FROM users WHERE id = ? AND token = ?']);
    assert.deepEqual(
      section.statements.map((statement) => statement.text),
      [0, 0, 0],
    );
    assert.doesNotMatch(stored, /tok-7/);
  });
});

describe('a statement seen by OpenTelemetry and by a library channel is kept once', () => {
  it("keeps one of a mysql2 span and mysql2's own channel statement, and what only one saw", async () => {
    const { section } = await databaseOf('/mysql/traced');
    assert.deepEqual(listed(section), [
      'mysql SELECT name FROM users WHERE id = ?',
      'mysql SELECT name FROM users WHERE id = ?',
      'mysql SELECT ? AS untraced',
    ]);
    assert.deepEqual(
      section.statements.map((statement) => statement.rows),
      [1, 1, 1],
      "the channel's are kept: they carry the rows",
    );
  });
});
