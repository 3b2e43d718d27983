/**
 * Issue 44, item 6: the access line's level says how the request went: `error` for a 5xx
 * answer, `warn` for a 4xx, `info` for the rest, each with the report's link in debug mode.
 * The plugin on an application listening on a real socket, its log lines read as written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { HttpError } from '../../src/routes-api.js';
import { ask } from '../support/service.js';

interface LogLine {
  level: number;
  msg: string;
}

const lines: LogLine[] = [];
let app: FastifyInstance;
let service: { url: string; ca: undefined };

before(async () => {
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'info', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-access-')) });
  app = Fastify(
    vigilFastifyOptions(config, { logOutput: { write: (line: string) => lines.push(JSON.parse(line) as LogLine) } }),
  );
  await app.register(vigil, { config, accessLog: true });
  app.get('/hello', async () => 'hello');
  app.get('/fail', async () => {
    throw new Error('database is down');
  });
  app.get('/teapot', async () => {
    throw new HttpError(418, 'no coffee here', 'APP_ERR_TEAPOT');
  });
  app.get('/unavailable', async (_request, reply) => reply.code(503).send('later'));
  await app.listen({ host: '127.0.0.1', port: 0 });
  service = { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, ca: undefined };
});
after(() => app.close());

/** The access line of `GET path`, once written (onResponse runs after the answer is sent). */
async function accessLineOf(path: string, status: number): Promise<LogLine & { link: string }> {
  const answer = await ask(service, { path });
  assert.equal(answer.status, status);
  const link = String(answer.headers['x-debug-token-link']);
  const text = `GET ${path} ${status} `;
  for (let waited = 0; waited < 5_000 && !lines.some((line) => line.msg.startsWith(text)); waited += 10)
    await sleep(10);
  const line = lines.find((candidate) => candidate.msg.startsWith(text));
  assert.ok(line, `an access line for ${path}`);
  return { ...line, link };
}

const INFO = 30;
const WARN = 40;
const ERROR = 50;

describe("the access line's level follows the status, with the report's link", () => {
  for (const [path, status, level] of [
    ['/hello', 200, INFO],
    ['/nowhere', 404, WARN],
    ['/teapot', 418, WARN],
    ['/fail', 500, ERROR],
    ['/unavailable', 503, ERROR],
  ] as const) {
    it(`logs a ${status} at level ${level}`, async () => {
      const line = await accessLineOf(path, status);
      assert.equal(line.level, level);
      assert.match(line.msg, /^GET \S+ \d{3} \d+\.\d ms https?:\/\/\S+\/_profiler\/[0-9a-f]{6}$/);
      assert.ok(line.msg.endsWith(` ${line.link}`), 'the link the answer carries');
    });
  }
});
