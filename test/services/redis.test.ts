/**
 * Issue 43, item 6, against a real Redis: Debian's `redis-server` on a free port, and the
 * clients from npm, ioredis and node-redis (`redis`), used as an application uses them. Their
 * commands reach the Database panel through the clients' own tracing channels, with no
 * set-up: each as its name and a `?` per argument, grouped, with the application's line, and
 * no key or value kept. Run by `npm run test:services` (not by `npm test`: it needs Debian's
 * redis-server).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';

const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/sbin/redis-server'].find((path) => existsSync(path));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** redis-server on `port`, in memory only, up once it says it accepts connections. */
function startRedis(port: number): Promise<ChildProcess> {
  const server = spawn(
    REDIS_SERVER!,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let said = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('Ready to accept connections')) resolve(server);
    });
    server.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${said}`)));
  });
}

interface DatabaseSection {
  texts: string[];
  statements: Array<{ system: string; text: number; site: string | null }>;
}

let redisServer: ChildProcess | undefined;
let ioredis: Redis;
let nodeRedis: ReturnType<typeof createClient>;
let app: FastifyInstance;
let url: string;

before(async () => {
  assert.ok(REDIS_SERVER, "Debian's redis-server is installed (apt-get install redis-server)");
  const port = await freePort();
  redisServer = await startRedis(port);
  ioredis = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
  await ioredis.connect();
  nodeRedis = createClient({ url: `redis://127.0.0.1:${port}` });
  await nodeRedis.connect();
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-redis-')) });
  app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get('/ioredis', async () => {
    await ioredis.set('session:secret-key-1', 'secret-value-1');
    for (const user of [1, 2, 3]) await ioredis.get(`session:secret-key-${user}`);
    return 'ran';
  });
  app.get('/node-redis', async () => {
    await nodeRedis.hSet('user:secret-key-4', 'email', 'secret-value@example.com');
    for (const user of [1, 2]) await nodeRedis.get(`session:secret-key-${user}`);
    return 'ran';
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});

after(async () => {
  await app?.close();
  ioredis?.disconnect();
  await nodeRedis?.quit().catch(() => undefined);
  redisServer?.kill();
});

async function databaseOf(path: string): Promise<{ section: DatabaseSection; stored: string }> {
  const answer = await fetch(`${url}${path}`);
  assert.equal(answer.status, 200, await answer.text());
  const report = await app.vigil.report(answer);
  assert.ok(report, 'the report is stored');
  const stored = JSON.stringify(report);
  return { section: report.database as unknown as DatabaseSection, stored };
}

const listed = (section: DatabaseSection) =>
  section.statements.map((statement) => `${statement.system} ${section.texts[statement.text]}`);

describe('Redis commands in the Database panel, from a real redis-server', () => {
  it("ioredis: each command by name, the GETs grouped, with the application's line and no key or value", async () => {
    const { section, stored } = await databaseOf('/ioredis');
    assert.deepEqual(listed(section), ['redis SET ? ?', 'redis GET ?', 'redis GET ?', 'redis GET ?']);
    assert.deepEqual(section.texts, ['SET ? ?', 'GET ?']);
    for (const statement of section.statements)
      assert.match(statement.site ?? '', /test\/services\/redis\.test\.ts:\d+$/);
    assert.doesNotMatch(stored, /secret-key|secret-value/);
  });

  it("node-redis: each command by name, the GETs grouped, with the application's line and no key or value", async () => {
    const { section, stored } = await databaseOf('/node-redis');
    assert.deepEqual(listed(section), ['redis HSET ? ? ?', 'redis GET ?', 'redis GET ?']);
    for (const statement of section.statements)
      assert.match(statement.site ?? '', /test\/services\/redis\.test\.ts:\d+$/);
    assert.doesNotMatch(stored, /secret-key|secret-value/);
  });
});
