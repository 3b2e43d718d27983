/** CONTRACT section 6: the cross-origin policy, against the real service. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'examples/demo-routes.ts' }));

const allowed = 'http://localhost:3000';
/** The policy's `link`, and in debug mode the debug headers (issue 44). */
const DEBUG_EXPOSED = 'link, x-debug-token, x-debug-token-link, Server-Timing';
const preflight = (path: string, origin: string, method: string, headers?: string) =>
  ask(service(), {
    method: 'OPTIONS',
    path,
    headers: {
      origin,
      'access-control-request-method': method,
      ...(headers ? { 'access-control-request-headers': headers } : {}),
    },
  });

describe('a preflight is answered before routing, on any path', () => {
  for (const path of ['/items', '/no/route/here', '/hello']) {
    it(`answers 200 with an empty body and the policy on ${path}`, async () => {
      const answer = await preflight(path, allowed, 'POST', 'content-type');
      assert.equal(answer.status, 200);
      assert.equal(answer.body, '');
      assert.equal(answer.headers['access-control-allow-origin'], allowed);
      assert.equal(answer.headers['access-control-allow-methods'], 'GET, OPTIONS, POST, PUT, PATCH, DELETE');
      assert.equal(answer.headers['access-control-allow-headers'], 'content-type, authorization');
      assert.equal(answer.headers['access-control-max-age'], '3600');
      assert.equal(answer.headers.vary, 'Origin');
      assert.equal(answer.headers['access-control-allow-credentials'], undefined);
    });
  }

  it('leaves Access-Control-Allow-Origin out for a disallowed origin', async () => {
    const answer = await preflight('/items', 'http://127.0.0.2:3000', 'POST', 'content-type');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
    assert.equal(answer.headers.vary, 'Origin');
  });

  it('refuses a method outside the list with a 405 through the error pipeline', async () => {
    const answer = await preflight('/items', allowed, 'TRACE');
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET, OPTIONS, POST, PUT, PATCH, DELETE');
    assert.equal(answer.headers['cache-control'], 'no-cache, private');
    assert.equal(answer.headers.vary, 'Origin, Accept');
    assert.equal(answer.headers['access-control-allow-origin'], allowed);
    assert.match(decodeURIComponent(String(answer.headers['x-debug-exception'])), /does not allow the method "TRACE"/);
  });

  it('refuses an unlisted header with a 400 naming it', async () => {
    const answer = await preflight('/items', allowed, 'POST', 'content-type, x-api-key');
    assert.equal(answer.status, 400);
    assert.equal(
      decodeURIComponent(String(answer.headers['x-debug-exception'])),
      'Unauthorized header x-api-key (allowed: content-type, authorization)',
    );
    assert.match(String(answer.headers['x-debug-token']), /^[0-9a-f]{6}$/);
  });
});

describe('actual requests from an allowed origin get Access-Control-Allow-Origin and Expose-Headers, errors included', () => {
  it('on a routed answer', async () => {
    const answer = await ask(service(), { path: '/hello', headers: { origin: 'https://127.0.0.1:8443' } });
    assert.equal(answer.body, 'hello');
    assert.equal(answer.headers['access-control-allow-origin'], 'https://127.0.0.1:8443');
    assert.equal(answer.headers['access-control-expose-headers'], DEBUG_EXPOSED);
    assert.equal(answer.headers.vary, 'Origin');
  });

  it('on a 404', async () => {
    const answer = await ask(service(), { path: '/robots.txt', headers: { origin: allowed } });
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['access-control-allow-origin'], allowed);
    assert.equal(answer.headers['access-control-expose-headers'], DEBUG_EXPOSED);
    assert.equal(answer.headers.vary, 'Origin, Accept');
  });

  it('gives a disallowed origin no CORS header and the normal response', async () => {
    const answer = await ask(service(), { path: '/robots.txt', headers: { origin: 'https://evil.example' } });
    assert.equal(answer.status, 404);
    assert.deepEqual(
      Object.keys(answer.headers).filter((name) => name.startsWith('access-control-')),
      [],
    );
    assert.equal(answer.headers.vary, 'Accept');
  });

  it('leaves requests without Origin untouched: OPTIONS to a GET route is a 405', async () => {
    const answer = await ask(service(), {
      method: 'OPTIONS',
      path: '/hello',
      headers: { 'access-control-request-method': 'GET' },
    });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
  });
});

describe('the policy is configurable', () => {
  it('follows CORS_ALLOW_ORIGIN and the other CORS_* settings', async () => {
    const custom = await startInProcess({
      CORS_ALLOW_ORIGIN: '^https://app\\.example\\.com$',
      CORS_ALLOW_METHODS: 'GET, POST',
      CORS_ALLOW_HEADERS: 'content-type, x-api-key',
      CORS_EXPOSE_HEADERS: 'link, x-debug-token',
      CORS_MAX_AGE: '60',
    });
    try {
      const ok = await ask(custom, {
        method: 'OPTIONS',
        path: '/x',
        headers: {
          origin: 'https://APP.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-api-key',
        },
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['access-control-allow-origin'], 'https://APP.example.com');
      assert.equal(ok.headers['access-control-allow-methods'], 'GET, POST');
      assert.equal(ok.headers['access-control-max-age'], '60');
      const refused = await ask(custom, {
        method: 'OPTIONS',
        path: '/x',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'DELETE' },
      });
      assert.equal(refused.status, 405);
      const actual = await ask(custom, { path: '/x', headers: { origin: 'https://app.example.com' } });
      assert.equal(
        actual.headers['access-control-expose-headers'],
        'link, x-debug-token, x-debug-token-link, Server-Timing',
        'the debug headers already listed are not repeated',
      );
      const localhost = await ask(custom, { path: '/x', headers: { origin: 'http://localhost' } });
      assert.equal(localhost.headers['access-control-allow-origin'], undefined);
    } finally {
      await custom.stop();
    }
  });
});
