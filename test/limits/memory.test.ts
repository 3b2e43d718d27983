/**
 * CONTRACT section 7, memory: an isolated handler may use MEMORY_LIMIT (64M here), counted
 * with everything it allocates, Buffers included. Over it the client gets a 500
 * "Allowed memory size of 67108864 bytes exhausted", the worker is replaced, and the
 * service and other requests go on.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { ask, startService, workerPids, serviceForTests } from '../support/service.js';
import { debugMessage } from '../support/answers.js';

const service = serviceForTests(() =>
  startService({ ROUTES: 'test/fixtures/limit-routes.ts', MEMORY_LIMIT: '64M', ISOLATED_WORKERS: '1' }),
);

const EXHAUSTED = 'Allowed memory size of 67108864 bytes exhausted';

/** The one worker's pid, once it has answered a small request (so no replacement is under way). */
async function settledWorker(): Promise<number> {
  assert.equal((await ask(service(), { path: '/hog?mb=1' })).status, 200);
  const pids = workerPids(service().pid);
  assert.equal(pids.length, 1);
  return pids[0]!;
}

async function replacementOf(pid: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const pids = workerPids(service().pid);
    if (pids.length === 1 && pids[0] !== pid) return pids[0]!;
    await sleep(25);
  }
  throw new Error(`worker ${pid} was not replaced`);
}

describe('an isolated handler under MEMORY_LIMIT answers', () => {
  for (const mb of [8, 48]) {
    it(`answers /hog?mb=${mb} (Buffers)`, async () => {
      const answer = await ask(service(), { path: `/hog?mb=${mb}` });
      assert.equal(answer.status, 200);
      assert.deepEqual(JSON.parse(answer.body), { allocated: mb, kind: 'buffer', chunks: mb });
    });
  }

  it('answers /hog?mb=40&kind=array (JS arrays)', async () => {
    const answer = await ask(service(), { path: '/hog?mb=40&kind=array' });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).kind, 'array');
  });
});

describe('an isolated handler over MEMORY_LIMIT is a 500 and its worker is replaced', () => {
  it('answers /hog?mb=80 (Buffers, outside the V8 heap) with the PHP message', async () => {
    const before = await settledWorker();
    const answer = await ask(service(), { path: '/hog?mb=80', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 500);
    assert.equal(debugMessage(answer), EXHAUSTED);
    assert.equal(JSON.parse(answer.body).exception.class, 'MemoryExhaustedError');
    await replacementOf(before); // throws unless another worker takes its place
  });

  it('answers /hog?mb=500&kind=array (the V8 heap) with the same 500', async () => {
    const answer = await ask(service(), { path: '/hog?mb=500&kind=array' });
    assert.equal(answer.status, 500);
    assert.equal(debugMessage(answer), EXHAUSTED);
  });

  it('survives /hog?mb=500 and then answers /hog?mb=8', async () => {
    const hog = await ask(service(), { path: '/hog?mb=500' });
    assert.equal(hog.status, 500);
    assert.equal(debugMessage(hog), EXHAUSTED);
    const next = await ask(service(), { path: '/hog?mb=8' });
    assert.equal(next.status, 200);
    assert.equal(JSON.parse(next.body).allocated, 8);
  });

  it('answers other requests while the worker is killed for its memory (the next isolated one waits for its replacement)', async () => {
    const [hog, hello, small] = await Promise.all([
      ask(service(), { path: '/hog?mb=500' }),
      ask(service(), { path: '/hello' }),
      ask(service(), { path: '/hog?mb=4' }),
    ]);
    assert.equal(hog.status, 500);
    assert.equal(hello.status, 200);
    assert.equal(small.status, 200);
  });
});

describe('an isolated handler gets its request and answers like any handler', () => {
  it('receives params, query, method, url and headers', async () => {
    const answer = await ask(service(), { path: '/isolated-echo/7?x=1&x=2', headers: { 'user-agent': 'limits-test' } });
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), {
      params: { id: '7' },
      query: { x: ['1', '2'] },
      method: 'GET',
      url: '/isolated-echo/7?x=1&x=2',
      agent: 'limits-test',
    });
  });

  it('sends a Buffer it returns as bytes', async () => {
    const answer = await ask(service(), { path: '/isolated-buffer' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, 'bytes from a worker');
    assert.equal(answer.headers['content-type'], 'application/octet-stream');
  });

  it('renders its HttpError with its status and the line in the routes module that threw it', async () => {
    const answer = await ask(service(), { path: '/isolated-teapot', headers: { accept: 'text/plain' } });
    assert.equal(answer.status, 418);
    assert.equal(debugMessage(answer), 'no coffee in the worker');
    assert.match(String(answer.headers['x-debug-exception-file']), /test%2Ffixtures%2Flimit-routes\.ts:\d+$/);
    assert.match(answer.body, /HttpError \(APP_ERR_TEAPOT\)/);
  });

  it('answers a result that cannot leave the worker with a 500 that says so', async () => {
    const answer = await ask(service(), { path: '/isolated-function' });
    assert.equal(answer.status, 500);
    assert.match(debugMessage(answer), /^An isolated handler must return data that can be copied to the service/);
  });
});
