/**
 * Issue 43, item 6: a websocket upgrade through `@fastify/websocket` gets a report of its
 * handshake. Fastify hijacks the reply and runs no onResponse for it, and the handshake goes
 * out on the socket: before, the request's report was never made.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';

let app: FastifyInstance;
let url: string;

before(async () => {
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-ws-')) });
  app = Fastify(vigilFastifyOptions(config));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  await app.register(websocket);
  app.get('/chat', { websocket: true }, (socket) => {
    socket.on('message', (message: Buffer) => socket.send(`echo ${message.toString()}`));
  });
  url = (await app.listen({ host: '127.0.0.1', port: 0 })).replace('http:', 'ws:');
});
after(() => app.close());

describe('a websocket upgrade gets a report of its handshake', () => {
  it('stores the handshake as a 101 on its route, while the socket serves', async () => {
    const client = new WebSocket(`${url}/chat`);
    const echoed = await new Promise<string>((resolve, reject) => {
      client.once('open', () => client.send('hello'));
      client.once('message', (data: Buffer) => resolve(data.toString()));
      client.once('error', reject);
    });
    assert.equal(echoed, 'echo hello');
    const profiler = app.vigil.profiler!;
    let found: Awaited<ReturnType<typeof profiler.store.search>>['reports'] = [];
    for (let tries = 0; tries < 50 && found.length === 0; tries++) {
      await profiler.writer.flush();
      found = (await profiler.store.search({ url: '/chat' })).reports;
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    client.close();
    assert.equal(found.length, 1, 'one report for the upgrade');
    assert.equal(found[0]!.status, 101);
    assert.equal(found[0]!.method, 'GET');
    const report = await app.vigil.report(found[0]!.token);
    assert.equal(report?.routing?.matched?.path, '/chat');
  });
});
