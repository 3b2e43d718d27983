/**
 * A schema 400 helps fix the request: where in the body, which keyword, the schema's rule
 * and (redacted as bodies are) the value sent, on the debug page, in the problem details
 * and in the report; none of it in production. A 404 a route handed on keeps its own line.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import type { ExceptionSection } from '../../src/profiler/collectors/exception.js';
import { tokenOf } from '../support/answers.js';
import { ask, type Answer } from '../support/service.js';
import { startTogether } from '../support/start-together.js';

interface App {
  app: FastifyInstance;
  url: string;
  ca: undefined;
}

const order = {
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['price'],
        properties: { price: { type: 'integer', minimum: 0 }, name: { type: 'string' } },
      },
    },
    password: { type: 'string', minLength: 12 },
  },
} as const;

async function startApp(env: Record<string, string>): Promise<App> {
  const config = loadConfig({ TLS: '0', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-schema-')), ...env });
  const app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 }, errorFormat: 'html' });
  app.post('/orders', { schema: { body: order } }, async () => ({ ordered: true }));
  app.get('/products/:id', async (_request, reply) => reply.callNotFound());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return { app, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, ca: undefined };
}

let debug: App;
let production: App;
before(async () => {
  [debug, production] = await startTogether<[App, App]>([startApp({}), startApp({ APP_ENV: 'prod' })], (started) =>
    started.app.close(),
  );
});
after(() => Promise.all([debug.app.close(), production.app.close()]));

const postOrder = (app: App, body: unknown, accept = 'text/html'): Promise<Answer> =>
  ask(app, {
    method: 'POST',
    path: '/orders',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });

const WRONG_PRICE = { items: [{ name: 'pen', price: 1.5 }] };

describe('a schema 400 shows the path, the keyword, the rule and the value sent', () => {
  it('on the debug page', async () => {
    const answer = await postOrder(debug, WRONG_PRICE);
    assert.equal(answer.status, 400);
    assert.ok(
      answer.body.includes(
        '<tr><td>body</td><td><code>/items/0/price</code></td><td><code>type: integer</code></td><td><code>1.5</code></td></tr>',
      ),
      answer.body.slice(0, 3000),
    );
  });

  it('in the problem details, and the rule of a limit', async () => {
    const answer = await postOrder(debug, { items: [{ price: -3 }] }, 'application/json');
    const problem = JSON.parse(answer.body) as { exception: { violations?: unknown } };
    assert.deepEqual(problem.exception.violations, [
      { in: 'body', path: '/items/0/price', keyword: 'minimum', rule: 'minimum: 0', value: '-3' },
    ]);
    const missing = JSON.parse((await postOrder(debug, { items: [{}] }, 'application/json')).body);
    assert.deepEqual(missing.exception.violations, [
      { in: 'body', path: '/items/0/price', keyword: 'required', rule: 'required: price' },
    ]);
  });

  it('redacts a value sent under a secret name, as the report redacts bodies', async () => {
    const answer = await postOrder(debug, { items: [], password: 'hunter2' }, 'application/json');
    const { violations } = JSON.parse(answer.body).exception as { violations: Array<{ value?: string }> };
    assert.equal(violations[0]?.value, '[redacted]');
    assert.ok(!answer.body.includes('hunter2'));
  });

  it('in the report', async () => {
    const answer = await postOrder(debug, WRONG_PRICE);
    const profiler = debug.app.vigil.profiler!;
    await profiler.writer.flush();
    const report = await profiler.store.read(tokenOf(answer));
    const exception = report?.collectors.exception as ExceptionSection;
    assert.deepEqual(exception.violations, [
      { in: 'body', path: '/items/0/price', keyword: 'type', rule: 'type: integer', value: '1.5' },
    ]);
  });

  it('shows none of it in production', async () => {
    for (const accept of ['text/html', 'application/json', 'text/plain']) {
      const answer = await postOrder(production, WRONG_PRICE, accept);
      assert.equal(answer.status, 400);
      for (const leak of ['/items/0/price', 'integer', 'minimum', 'refused', '"violations"', 'pen'])
        assert.ok(!answer.body.includes(leak), `${accept}: ${answer.body}`);
    }
  });
});

describe('a 404 a route handed on (reply.callNotFound) is its own', () => {
  it("says the route's handler decided it, not routing, and offers no near route", async () => {
    const answer = await ask(debug, { path: '/products/3', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 404);
    const { exception } = JSON.parse(answer.body) as { exception: Record<string, unknown> };
    assert.equal(exception.raisedBy, "the route's handler: reply.callNotFound()");
    assert.equal(exception.nearRoutes, undefined);
  });

  it('while a path no route took says routing decided it, and names the near route', async () => {
    const answer = await ask(debug, { path: '/product/3', headers: { accept: 'application/json' } });
    const { exception } = JSON.parse(answer.body) as { exception: Record<string, unknown> };
    assert.equal(exception.raisedBy, 'routing: no route matches the path');
    assert.deepEqual(exception.nearRoutes, [{ methods: ['GET'], path: '/products/:id' }]);
  });
});
