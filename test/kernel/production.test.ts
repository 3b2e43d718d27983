/** CONTRACT section 1: without debug, no x-debug-* header, nothing internal in any body, no profiler. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, startService, type Service, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ APP_ENV: 'prod', ROUTES: 'test/fixtures/failing-routes.ts' }));

const internals = [
  'robots.txt',
  'No route found',
  'NotFoundHttpError',
  'unmatched.ts',
  'database is down',
  'failing-routes',
];

describe('production mode shows nothing internal', () => {
  it('answers the 404 with status, reason phrase and the cache headers only', async () => {
    const answer = await ask(service(), { path: '/robots.txt', headers: { accept: '*/*' } });
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['content-type'], 'text/html; charset=UTF-8');
    assert.equal(answer.headers['cache-control'], 'no-cache, private');
    assert.equal(answer.headers.vary, 'Accept');
    assert.equal(answer.headers['set-cookie'], undefined);
    assert.deepEqual(
      Object.keys(answer.headers).filter((name) => name.startsWith('x-debug')),
      [],
    );
    assert.ok(answer.body.includes('<title>Error 404 Not Found</title>'));
    for (const text of internals) assert.ok(!answer.body.includes(text), `body shows "${text}"`);
  });

  it('keeps the method, URL, message and trace out of every format', async () => {
    for (const accept of ['application/json', 'application/xml', 'text/plain']) {
      const answer = await ask(service(), { path: '/robots.txt', headers: { accept } });
      for (const text of internals) assert.ok(!answer.body.includes(text), `${accept} body shows "${text}"`);
    }
    const problem = JSON.parse(
      (await ask(service(), { path: '/robots.txt', headers: { accept: 'application/json' } })).body,
    );
    assert.deepEqual(problem, { type: 'about:blank', title: 'Not Found', status: 404, detail: 'Not Found' });
    assert.equal(
      (await ask(service(), { path: '/robots.txt', headers: { accept: 'text/plain' } })).body,
      '404 Not Found\n',
    );
  });

  it("hides a handler's failure behind a 500", async () => {
    const answer = await ask(service(), { path: '/fail' });
    assert.equal(answer.status, 500);
    assert.ok(answer.body.includes('Error 500 Internal Server Error'));
    for (const text of internals) assert.ok(!answer.body.includes(text), `body shows "${text}"`);
  });

  it('still answers 405 with Allow', async () => {
    const answer = await ask(service(), { method: 'DELETE', path: '/items' });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET, POST');
  });

  it('has no profiler route and issues no token', async () => {
    const answer = await ask(service(), { path: '/_profiler/abcdef', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['x-debug-token'], undefined);
    const hello = await ask(service(), { path: '/hello' });
    assert.equal(hello.body, 'hello');
    assert.equal(hello.headers['x-debug-token'], undefined);
  });
});

describe('NODE_ENV=production alone means production (issue 41, item 2)', () => {
  let started: Service;
  before(async () => {
    started = await startService({ NODE_ENV: 'production', ROUTES: 'test/fixtures/failing-routes.ts' });
  });
  after(() => started.stop());

  it('says so at start, naming NODE_ENV', () => {
    assert.match(
      started.output(),
      /vigil listening on \S+ \(prod, debug off: NODE_ENV=production, APP_ENV not set\)\r?\n(.*\r?\n)*  profiler: off/,
    );
  });

  it('gives a loopback client no debug header and writes no report store', async () => {
    const answer = await ask(started, { path: '/robots.txt' });
    assert.equal(answer.status, 404);
    assert.deepEqual(
      Object.keys(answer.headers).filter((name) => name.startsWith('x-debug')),
      [],
    );
    assert.equal((await ask(started, { path: '/_profiler' })).status, 404);
    assert.ok(!existsSync(join(started.varDir, 'profiler.sqlite')), 'no store under VAR_DIR');
  });
});
