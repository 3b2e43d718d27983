/**
 * A 404 helps fix the request: it names the routes a few letters from its path ("did you
 * mean"), in the debug page, the problem details and the report, never in production; and
 * it says routing decided it rather than naming a file of the kernel's.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service } from '../support/service.js';
import { startTogether } from '../support/start-together.js';
import { tokenOf } from '../support/answers.js';

let debug: Service;
let production: Service;
before(async () => {
  [debug, production] = await startTogether<[Service, Service]>(
    [
      startInProcess({ ROUTES: 'test/fixtures/near-routes-shop.ts' }),
      startInProcess({ ROUTES: 'test/fixtures/near-routes-shop.ts', APP_ENV: 'prod' }),
    ],
    (started) => started.stop(),
  );
});
after(() => Promise.all([debug.stop(), production.stop()]));

/** The report of a token as the profiler serves it, once written (after the answer). */
async function storedReport(token: string): Promise<{ collectors: Record<string, Record<string, unknown>> }> {
  for (let attempt = 0; ; attempt++) {
    const answer = await ask(debug, { path: `/_profiler/${token}`, headers: { accept: 'application/json' } });
    if (answer.status === 200) return JSON.parse(answer.body);
    if (attempt === 100) assert.fail(`no report under ${token}: ${answer.status}`);
    await sleep(50);
  }
}

describe('a 404 names the routes a few letters from its path', () => {
  it('offers /api/products/{id} for /api/product/3 on the debug page', async () => {
    const answer = await ask(debug, { path: '/api/product/3' });
    assert.equal(answer.status, 404);
    const near = /<section id="near-routes"><h2>Did you mean<\/h2><ul>(.*?)<\/ul><\/section>/.exec(answer.body);
    assert.ok(near, answer.body.slice(0, 2000));
    assert.equal(near[1], '<li><code>GET /api/products/{id}</code></li>');
  });

  it('gives them in the problem details and in text', async () => {
    const json = await ask(debug, { path: '/api/prodcuts', headers: { accept: 'application/json' } });
    const problem = JSON.parse(json.body) as { exception: { nearRoutes?: unknown } };
    assert.deepEqual(problem.exception.nearRoutes, [{ methods: ['GET'], path: '/api/products' }]);
    const text = await ask(debug, { path: '/api/product/3', headers: { accept: 'text/plain' } });
    assert.match(text.body, /^Did you mean: GET \/api\/products\/\{id\}$/m);
  });

  it('shows them in the routing panel of the report', async () => {
    const answer = await ask(debug, { path: '/api/product/3' });
    const report = await storedReport(tokenOf(answer));
    assert.deepEqual(report.collectors.routing?.nearRoutes, [{ methods: ['GET'], path: '/api/products/{id}' }]);
    const page = await ask(debug, { path: `/_profiler/${tokenOf(answer)}?panel=routing` });
    assert.match(
      page.body,
      /<section id="near-routes"><h3>Did you mean<\/h3><ul><li><code>GET \/api\/products\/\{id\}<\/code>/,
    );
  });

  it('offers nothing for a path far from every route, nor for a path of 8 KB or of thousands of segments', async () => {
    const far = await ask(debug, { path: '/robots.txt', headers: { accept: 'application/json' } });
    assert.equal(JSON.parse(far.body).exception.nearRoutes, undefined);
    // One edit from /api/products/{id} but for its length (under the 8 KB a request target may have).
    for (const path of [`/api/product/${'x'.repeat(8000)}`, `/api/product${'/3'.repeat(3000)}`]) {
      const answer = await ask(debug, { path, headers: { accept: 'application/json' } });
      assert.equal(answer.status, 404);
      assert.equal(JSON.parse(answer.body).exception.nearRoutes, undefined);
    }
    // Still answering.
    assert.equal((await ask(debug, { path: '/api/products' })).status, 200);
  });

  it('shows none of it in production', async () => {
    for (const accept of ['text/html', 'application/json', 'text/plain']) {
      const answer = await ask(production, { path: '/api/product/3', headers: { accept } });
      assert.equal(answer.status, 404);
      assert.ok(!answer.body.includes('/api/products'), answer.body);
      assert.ok(!/did you mean/i.test(answer.body), answer.body);
    }
  });
});

describe('a 404 no route took says routing decided it', () => {
  it("names routing on the page and in the report, not a file of the kernel's", async () => {
    const answer = await ask(debug, { path: '/api/product/3' });
    assert.match(answer.body, /<dt>Raised by<\/dt><dd>routing: no route matches the path<\/dd>/);
    assert.ok(!answer.body.includes('<dt>Raised at</dt>'), 'no raise site on the page');
    const exception = (await storedReport(tokenOf(answer))).collectors.exception!;
    assert.equal(exception.raisedBy, 'routing: no route matches the path');
  });
});
