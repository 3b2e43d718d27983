/**
 * Issue 10, item 6: a refused client gets the ordinary 404 for every method and target
 * form; the profiler is never readable cross-origin; forwarded schemes other than http
 * and https are ignored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Answer, type Service } from '../support/service.js';

const OUTSIDER = '203.0.113.7';
const message = (answer: Answer) => decodeURIComponent(String(answer.headers['x-debug-exception']));
/** What an answer shows of itself, besides what differs on every request. */
const shape = (answer: Answer) => ({
  status: answer.status,
  allow: answer.headers.allow,
  location: answer.headers.location,
  headers: Object.keys(answer.headers).sort(),
});

describe('a refused client gets the ordinary 404 for every method and target form', () => {
  let service: Service;
  before(async () => {
    service = await startInProcess({ TRUSTED_PROXIES: '127.0.0.1,::1' });
  });
  after(() => service.stop());
  const asOutsider = (path: string, method = 'GET') =>
    ask(service, { method, path, headers: { 'x-forwarded-for': OUTSIDER } });

  it('answers an absolute-form target like an origin-form one', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS']) {
      for (const origin of [`https://127.0.0.1:${service.port}`, 'http://evil']) {
        const denied = await asOutsider(`${origin}/_profiler`, method);
        const unrouted = await asOutsider(`${origin}/no-route`, method);
        assert.deepEqual(shape(denied), shape(unrouted), `${method} ${origin}/_profiler`);
        // An outsider gets the production rendering: nothing in it names the path.
        assert.equal(denied.body, unrouted.body, `${method} ${origin}/_profiler`);
      }
    }
  });

  it('never redirects a profiler path with or without its slash', async () => {
    for (const path of [
      'http://evil/_profiler/search/',
      '/_profiler/search/',
      `https://127.0.0.1:${service.port}/_profiler/`,
      '/%5Fprofiler/search/',
    ]) {
      const denied = await asOutsider(path);
      assert.equal(denied.status, 404, path);
      assert.equal(denied.headers.location, undefined, path);
    }
  });

  it('still serves an admitted client that uses the absolute form', async () => {
    const answer = await ask(service, { path: `https://127.0.0.1:${service.port}/_profiler` });
    assert.equal(answer.status, 200);
  });
});

describe('profiler pages and their JSON send no CORS headers', () => {
  let service: Service;
  before(async () => {
    service = await startInProcess();
  });
  after(() => service.stop());
  const origin = 'http://localhost:3000';

  it('gives an allowed origin nothing to read the search, a report or an error with', async () => {
    const token = String((await ask(service, { path: '/robots.txt', headers: { origin } })).headers['x-debug-token']);
    for (const path of [
      '/_profiler',
      '/_profiler/search?status_code=404',
      `/_profiler/${token}`,
      '/_profiler/zzzzzz',
    ]) {
      const answer = await ask(service, { path, headers: { origin, accept: 'application/json' } });
      assert.ok(answer.status === 200 || answer.status === 404, path);
      const cors = Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'));
      assert.deepEqual(cors, [], path);
    }
  });

  it('allows no origin in a preflight to the profiler', async () => {
    const answer = await ask(service, {
      method: 'OPTIONS',
      path: '/_profiler/search',
      headers: { origin, 'access-control-request-method': 'GET' },
    });
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
  });

  it('keeps CORS for the rest of the service', async () => {
    const answer = await ask(service, { path: '/robots.txt', headers: { origin } });
    assert.equal(answer.headers['access-control-allow-origin'], origin);
  });
});

describe('X-Forwarded-Proto other than http or https is ignored', () => {
  let service: Service;
  before(async () => {
    service = await startInProcess({ TLS: '0', TRUSTED_PROXIES: '127.0.0.1,::1', ROUTES: 'examples/demo-routes.ts' });
  });
  after(() => service.stop());

  it('keeps the socket’s scheme for links and messages (a redirect names no scheme)', async () => {
    for (const proto of ['javascript', 'data', 'https:evil', 'ftp', '']) {
      const headers = { 'x-forwarded-proto': proto, 'x-forwarded-host': 'api.example.com' };
      const error = await ask(service, { path: '/robots.txt', headers });
      assert.equal(message(error), 'No route found for "GET http://api.example.com/robots.txt"', proto);
      assert.match(
        String(error.headers['x-debug-token-link']),
        /^http:\/\/api\.example\.com\/_profiler\/[0-9a-f]{6}$/,
        proto,
      );
      const redirect = await ask(service, { path: '/with-slash', headers });
      assert.equal(redirect.headers.location, '/with-slash/', proto);
    }
  });

  it('still believes https and http, in any case', async () => {
    const answer = await ask(service, {
      path: '/robots.txt',
      headers: { 'x-forwarded-proto': 'HTTPS', 'x-forwarded-host': 'api.example.com' },
    });
    assert.equal(message(answer), 'No route found for "GET https://api.example.com/robots.txt"');
  });
});
