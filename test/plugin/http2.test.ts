/**
 * vigil in an application served over HTTP/2 (h2c): a client that resets one stream keeps its
 * connection, so the profiler learns of it from Fastify's onRequestAbort, not from the
 * connection closing as on HTTP/1 (`src/profiler/connection-watch.ts`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';

function get(session: ClientHttp2Session, path: string): Promise<{ status: number; token: string | undefined }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    stream.on('response', (headers) => {
      stream.resume();
      stream.on('end', () =>
        resolve({ status: Number(headers[':status']), token: headers['x-debug-token'] as string | undefined }),
      );
    });
    stream.on('error', reject);
  });
}

describe('over HTTP/2, a stream its client resets is reported as 499, the connection kept', () => {
  let app: FastifyInstance;
  let session: ClientHttp2Session;

  before(async () => {
    const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-h2-')) });
    const options = { ...vigilFastifyOptions(config, { logOutput: { write: () => true } }), http2: true } as const;
    app = Fastify(options as unknown as Parameters<typeof Fastify>[0]) as unknown as FastifyInstance;
    await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
    app.get('/hello', async () => ({ hello: 'world' }));
    app.get('/wait', async () => {
      await sleep(300);
      return 'late';
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    session = connect(url);
  });
  after(async () => {
    session?.close();
    await app?.close();
  });

  it('answers with its debug token, and reports the reset stream alone', async () => {
    const hello = await get(session, '/hello');
    assert.equal(hello.status, 200);
    assert.ok(hello.token, 'a debug token');
    const stream = session.request({ ':path': '/wait?reset=1' });
    stream.on('error', () => {});
    await sleep(50);
    stream.close(constants.NGHTTP2_CANCEL);
    // The same connection goes on serving.
    assert.equal((await get(session, '/hello?after=1')).status, 200);
    let statuses: number[] = [];
    for (let tries = 0; tries < 200 && statuses.length === 0; tries++) {
      await sleep(10);
      await app.vigil.profiler!.writer.flush();
      statuses = (await app.vigil.profiler!.store.search({ url: 'reset=1' })).reports.map((report) => report.status);
    }
    assert.deepEqual(statuses, [499]);
  });
});
