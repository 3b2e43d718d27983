/** Issue 10, item 6: TRUSTED_HOSTS (Symfony's setting) answers other hosts 400 through the pipeline, against DNS rebinding. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, runMain, type Answer, type Service } from '../support/service.js';

const message = (answer: Answer) => decodeURIComponent(String(answer.headers['x-debug-exception']));

describe('TRUSTED_HOSTS: comma-separated regular expressions, case-insensitive, anchored as written', () => {
  it('is empty by default: every host is accepted', () => {
    assert.deepEqual(loadConfig({}).trustedHosts, []);
  });
  it('reads each expression', () => {
    const hosts = loadConfig({ TRUSTED_HOSTS: '^localhost$, ^api\\.example\\.com$' }).trustedHosts;
    assert.deepEqual(hosts.map(String), ['/^localhost$/i', '/^api\\.example\\.com$/i']);
  });
  it('stops the start on an expression that is not one, naming the variable', async () => {
    assert.throws(
      () => loadConfig({ TRUSTED_HOSTS: '^(localhost$' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'TRUSTED_HOSTS',
    );
    const { code, stderr } = await runMain({ TRUSTED_HOSTS: '^(localhost$' });
    assert.equal(code, 1);
    assert.match(stderr, /TRUSTED_HOSTS: "\^\(localhost\$" is not a valid regular expression/);
  });
});

describe('a host TRUSTED_HOSTS does not match is answered 400', () => {
  let service: Service;
  before(async () => {
    service = await startInProcess({
      TRUSTED_HOSTS: '^localhost$,^api\\.example\\.com$',
      TRUSTED_PROXIES: '127.0.0.1,::1',
    });
  });
  after(() => service.stop());

  it('serves the trusted hosts, whatever their case and port', async () => {
    for (const host of [`localhost:${service.port}`, `LocalHost:${service.port}`, 'api.example.com']) {
      const answer = await ask(service, { path: '/robots.txt', headers: { host } });
      assert.equal(answer.status, 404, host);
    }
  });

  it('judges each request by its own Host, whatever the hosts before it', async () => {
    const trusted = `localhost:${service.port}`;
    const order = [trusted, 'rebound.example', 'rebound.example', trusted, 'bad host', trusted, trusted];
    const statuses = [];
    for (const host of order) statuses.push((await ask(service, { path: '/robots.txt', headers: { host } })).status);
    assert.deepEqual(statuses, [404, 400, 400, 404, 400, 404, 404]);
  });

  it('answers any other host 400 through the error pipeline, with a token and a report', async () => {
    const answer = await ask(service, { path: '/robots.txt', headers: { host: `rebound.example:${service.port}` } });
    assert.equal(answer.status, 400);
    assert.equal(message(answer), 'Untrusted Host "rebound.example".');
    assert.equal(answer.headers['cache-control'], 'no-cache, private');
    assert.match(String(answer.headers['x-debug-token']), /^[0-9a-f]{6}$/);
    const stored = await ask(service, {
      path: `/_profiler/${answer.headers['x-debug-token']}`,
      headers: { accept: 'application/json' },
    });
    assert.equal(JSON.parse(stored.body).status, 400);
  });

  it('keeps a rebound name from the profiler, even on loopback', async () => {
    const answer = await ask(service, {
      path: '/_profiler/search',
      headers: { host: `rebound.example:${service.port}`, accept: 'application/json' },
    });
    assert.equal(answer.status, 400);
    assert.doesNotMatch(answer.body, /"token":/);
  });

  it('checks the forwarded host behind a trusted proxy', async () => {
    const answer = await ask(service, { path: '/robots.txt', headers: { 'x-forwarded-host': 'evil.example' } });
    assert.equal(answer.status, 400);
    assert.equal(message(answer), 'Untrusted Host "evil.example".');
  });

  it('does not anchor what the operator did not: a partial expression matches a part', async () => {
    const loose = await startInProcess({ TRUSTED_HOSTS: 'example\\.com' });
    try {
      assert.equal((await ask(loose, { path: '/robots.txt', headers: { host: 'www.example.com' } })).status, 404);
      assert.equal((await ask(loose, { path: '/robots.txt', headers: { host: 'example.org' } })).status, 400);
    } finally {
      await loose.stop();
    }
  });
});
