/**
 * CONTRACT section 5 and issue 3: the profiler answers loopback and PROFILER_ALLOW only; anyone
 * else gets the ordinary 404, in the production rendering every outsider gets (issue 26, item 4).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProfilerAccess } from '../../src/profiler/access/access.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service } from '../support/service.js';
import { startKernel } from '../support/kernel.js';

const OUTSIDER = '203.0.113.7';

describe('ProfilerAccess admits loopback and the allowed networks', () => {
  it('admits 127.0.0.0/8, ::1 and IPv4-mapped loopback by default, nobody else', () => {
    const access = new ProfilerAccess();
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) assert.ok(access.allows(ip), ip);
    for (const ip of ['10.0.0.1', '::2', '192.0.2.1', 'fd00::1', '', 'localhost']) assert.ok(!access.allows(ip), ip);
  });
  it('adds the configured addresses and ranges', () => {
    const access = new ProfilerAccess(['10.0.0.0/8', '192.0.2.7', 'fd00::/8']);
    for (const ip of ['10.200.1.1', '192.0.2.7', '::ffff:10.0.0.9', 'fd00::1']) assert.ok(access.allows(ip), ip);
    for (const ip of ['11.0.0.1', '192.0.2.8', 'fe80::1']) assert.ok(!access.allows(ip), ip);
  });
});

// Behind a trusted proxy the forwarded client address decides, which lets these tests be an outsider on loopback.
describe('a client outside the allowed networks gets the ordinary 404', () => {
  let service: Service;
  before(async () => {
    service = await startInProcess({ TRUSTED_PROXIES: '127.0.0.1,::1' });
  });
  after(() => service.stop());
  const asOutsider = (path: string, method = 'GET') =>
    ask(service, { method, path, headers: { 'x-forwarded-for': OUTSIDER } });

  it('answers /_profiler like an unrouted path, in the production rendering it gives an outsider', async () => {
    const denied = await asOutsider('/_profiler');
    const unrouted = await asOutsider('/robots.txt');
    assert.equal(denied.status, 404);
    assert.equal(denied.body, unrouted.body);
    assert.deepEqual(Object.keys(denied.headers).sort(), Object.keys(unrouted.headers).sort());
    assert.deepEqual(
      Object.keys(denied.headers).filter((name) => name.startsWith('x-debug-')),
      [],
    );
    assert.equal(denied.headers['content-security-policy'], undefined);
  });

  it('gives nothing away for a report, a search, another method or an encoded path', async () => {
    const report = await ask(service, { path: '/robots.txt' });
    const token = String(report.headers['x-debug-token']);
    for (const [method, path] of [
      ['GET', `/_profiler/${token}`],
      ['GET', '/_profiler/search?status_code=404'],
      ['POST', '/_profiler'],
      ['GET', `/%5Fprofiler/${token}`],
      ['GET', '/_profiler/'],
    ] as const) {
      const answer = await asOutsider(path, method);
      const unrouted = await asOutsider('/robots.txt', method);
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.equal(answer.headers.allow, undefined);
      assert.equal(answer.body, unrouted.body, `${method} ${path}`);
      // The marks of a profiler page; the token itself is in the 404 message's URL.
      assert.doesNotMatch(answer.body, /id="token"|data-token=|class="menu"|"token":/);
    }
  });

  it('records the refused request like any other, for the profiler’s own users to see', async () => {
    await asOutsider('/_profiler?probe=1');
    const found = await ask(service, {
      path: `/_profiler/search?ip=${OUTSIDER}&url=probe`,
      headers: { accept: 'application/json' },
    });
    const results = JSON.parse(found.body) as Array<{ url: string; status: number }>;
    assert.deepEqual(
      results.map((r) => [r.url, r.status]),
      [[`${service.url}/_profiler?probe=1`, 404]],
    );
  });

  it('serves loopback clients', async () => {
    const answer = await ask(service, { path: '/_profiler' });
    assert.equal(answer.status, 200);
  });
});

describe('PROFILER_ALLOW opens the profiler to more networks', () => {
  let service: Service;
  before(async () => {
    service = await startInProcess({ TRUSTED_PROXIES: '127.0.0.1,::1', PROFILER_ALLOW: '203.0.113.0/24' });
  });
  after(() => service.stop());

  it('serves a client in an allowed range', async () => {
    const answer = await ask(service, { path: '/_profiler', headers: { 'x-forwarded-for': OUTSIDER } });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['x-debug-token'], undefined);
  });

  it('still refuses one outside it', async () => {
    const answer = await ask(service, { path: '/_profiler', headers: { 'x-forwarded-for': '198.51.100.1' } });
    assert.equal(answer.status, 404);
  });
});

describe('the socket address decides when no proxy is trusted', () => {
  it('refuses a peer outside loopback even if it claims otherwise', async () => {
    const kernel = await startKernel();
    try {
      const outsider = await kernel.app.inject({
        url: '/_profiler',
        remoteAddress: '192.0.2.50',
        headers: { 'x-forwarded-for': '127.0.0.1' },
      });
      assert.equal(outsider.statusCode, 404);
      assert.equal(outsider.headers['x-frame-options'], undefined);
      const local = await kernel.app.inject({ url: '/_profiler', remoteAddress: '127.0.0.1' });
      assert.equal(local.statusCode, 200);
    } finally {
      await kernel.close();
    }
  });
});

// Issue 27, item 7: behind a proxy on this machine with no TRUSTED_PROXIES, every client is loopback.
describe('a loopback peer forwarding for others while no proxy is trusted is warned about, once', () => {
  const WARNING =
    /"msg":"A request from loopback \(\S+\) carries X-Forwarded-For or Forwarded, but TRUSTED_PROXIES is empty: every client of a proxy on this machine counts as loopback and may open \/_profiler\. Set TRUSTED_PROXIES to the proxy's address"/g;
  const running: Service[] = [];
  after(() => Promise.all(running.map((service) => service.stop())));

  it('warns at the first forwarded request, and only once', async () => {
    const service = await startInProcess({ TLS: '0', LOG_LEVEL: 'warn' });
    running.push(service);
    await ask(service, { path: '/hello' });
    assert.doesNotMatch(service.output(), WARNING);
    await ask(service, { path: '/hello', headers: { 'x-forwarded-for': OUTSIDER } });
    await ask(service, { path: '/_profiler', headers: { forwarded: `for=${OUTSIDER}` } });
    assert.equal(service.output().match(WARNING)?.length, 1, service.output());
  });

  it('says nothing when TRUSTED_PROXIES names the proxy', async () => {
    const service = await startInProcess({ TLS: '0', LOG_LEVEL: 'warn', TRUSTED_PROXIES: '127.0.0.1,::1' });
    running.push(service);
    await ask(service, { path: '/hello', headers: { 'x-forwarded-for': OUTSIDER } });
    assert.doesNotMatch(service.output(), WARNING);
  });
});
