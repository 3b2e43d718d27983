/** CONTRACT section 5 (storage): a report for every request, stored after the response, secrets redacted. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Answer, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'examples/demo-routes.ts' }));

async function report(token: string): Promise<Answer> {
  return ask(service(), { path: `/_profiler/${token}`, headers: { accept: 'application/json' } });
}

describe('every request in debug mode gets a stored report under its token', () => {
  it('stores method, URL with query, status, time, duration, client IP, headers and the exception', async () => {
    const started = Date.now();
    const answer = await ask(service(), {
      path: '/robots.txt?page=2',
      headers: {
        authorization: 'Bearer secret-token',
        cookie: 'session=secret',
        'proxy-authorization': 'Basic c2VjcmV0',
        'x-trace': 'visible',
      },
    });
    const token = String(answer.headers['x-debug-token']);
    const stored = await report(token);
    assert.equal(stored.status, 200);
    const data = JSON.parse(stored.body);
    assert.equal(data.token, token);
    assert.equal(data.method, 'GET');
    assert.equal(data.url, `${service().url}/robots.txt?page=2`);
    assert.equal(data.status, 404);
    assert.ok(data.time >= started - 1000 && data.time <= Date.now());
    assert.ok(data.duration > 0);
    assert.equal(data.ip, '127.0.0.1');
    const requestHeaders = data.collectors.request.headers;
    assert.equal(requestHeaders.authorization, '[redacted]');
    assert.equal(requestHeaders.cookie, '[redacted]');
    assert.equal(requestHeaders['proxy-authorization'], '[redacted]');
    assert.equal(requestHeaders['x-trace'], 'visible');
    assert.match(data.collectors.request.tls.version, /^TLSv1\.[23]$/);
    assert.equal(data.collectors.request.tls.servername, 'localhost');
    assert.ok(!stored.body.includes('secret'), 'no secret anywhere in the report');
    assert.equal(data.collectors.response.headers['x-debug-token'], token);
    assert.equal(data.collectors.response.status, 404);
    assert.equal(data.collectors.exception.class, 'NotFoundHttpError');
    assert.equal(data.collectors.exception.message, `No route found for "GET ${service().url}/robots.txt"`);
    assert.ok(data.collectors.exception.trace.length > 0);
    assert.ok(data.collectors.exception.trace[0].file.endsWith('src/routing/unmatched.ts'));
  });

  it('stores successful requests too', async () => {
    const answer = await ask(service(), { path: '/hello' });
    const data = JSON.parse((await report(String(answer.headers['x-debug-token']))).body);
    assert.equal(data.status, 200);
    assert.equal(data.collectors.exception, undefined);
  });

  it('answers an unknown token with a 404 through the error pipeline', async () => {
    const answer = await report('zzzzzz');
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    assert.equal(JSON.parse(answer.body).detail, 'Token "zzzzzz" was not found in the database.');
  });

  it("does not profile the profiler's own pages", async () => {
    const answer = await report('zzzzzz');
    assert.equal(answer.headers['x-debug-token'], undefined);
  });

  it('keeps every report of a burst, each under its own token', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => ask(service(), { path: `/burst/${i}` })));
    const tokens = answers.map((a) => String(a.headers['x-debug-token']));
    assert.equal(new Set(tokens).size, 100);
    const urls = await Promise.all(tokens.map(async (token) => JSON.parse((await report(token)).body).url));
    assert.deepEqual(
      urls,
      answers.map((_, i) => `${service().url}/burst/${i}`),
    );
  });
});
