/**
 * Issue 26, item 5: against DNS rebinding, the profiler answers only Host names that are
 * loopback, the configured HOST or in TRUSTED_HOSTS, even with TRUSTED_HOSTS empty; any
 * other gets a 403 that says why, through the error pipeline.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { debugMessage } from '../support/answers.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Answer, type Service } from '../support/service.js';

const REBOUND = 'rebind.attacker.example';

function assertRefused(answer: Answer, host: string, what: string): void {
  assert.equal(answer.status, 403, what);
  assert.equal(
    debugMessage(answer),
    `The profiler answers only loopback host names, HOST and TRUSTED_HOSTS, not "${host}".`,
    what,
  );
  assert.equal(answer.headers['cache-control'], 'no-cache, private', what);
  assert.doesNotMatch(answer.body, /"token":|Latest requests/, what);
}

describe('by default the profiler answers loopback host names only', () => {
  let service: Service;
  before(async () => {
    service = await startInProcess();
  });
  after(() => service.stop());

  it('refuses a rebound name on loopback, through the error pipeline', async () => {
    for (const path of ['/_profiler/latest', '/_profiler', '/_profiler/search?ip=127']) {
      for (const host of [REBOUND, `${REBOUND}:${service.port}`, 'LOCALHOST.attacker.example', '127.0.0.1.nip.io']) {
        const answer = await ask(service, { path, headers: { host, accept: 'application/json' } });
        assertRefused(answer, host.replace(/:\d+$/, '').toLowerCase(), `${path} ${host}`);
      }
    }
  });

  it('serves localhost, 127.0.0.1 and [::1] with any port or none, in any case', async () => {
    for (const host of [
      'localhost',
      `localhost:${service.port}`,
      'LocalHost:1',
      '127.0.0.1',
      `127.0.0.1:${service.port}`,
      '[::1]',
      '[::1]:8443',
    ]) {
      const answer = await ask(service, { path: '/_profiler', headers: { host } });
      assert.equal(answer.status, 200, host);
    }
  });

  it('leaves other paths to the usual rules', async () => {
    const answer = await ask(service, { path: '/robots.txt', headers: { host: REBOUND } });
    assert.equal(answer.status, 404);
  });
});

describe('TRUSTED_HOSTS and HOST add names the profiler answers', () => {
  let trusting: Service;
  let named: { app: FastifyInstance; url: string; ca: undefined };
  before(async () => {
    trusting = await startInProcess({
      TRUSTED_HOSTS: '^localhost$,^dev\\.example\\.test$',
      TRUSTED_PROXIES: '127.0.0.1,::1',
    });
    // Plugin mode: HOST names the service; the application listens where it likes, and trusts every proxy.
    const config = loadConfig({
      TLS: '0',
      HOST: 'box.example.test',
      LOG_LEVEL: 'silent',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-rebinding-')),
    });
    const app = Fastify({ ...vigilFastifyOptions(config), trustProxy: true });
    await app.register(vigil, { config });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    named = {
      app,
      url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
      ca: undefined,
    };
  });
  after(() => Promise.all([trusting?.stop(), named?.app.close()]));

  it('serves a name in TRUSTED_HOSTS', async () => {
    assert.equal((await ask(trusting, { path: '/_profiler', headers: { host: 'dev.example.test' } })).status, 200);
  });

  it("checks a vigil-trusted proxy's forwarded host", async () => {
    assert.equal(
      (await ask(trusting, { path: '/_profiler', headers: { 'x-forwarded-host': 'dev.example.test' } })).status,
      200,
    );
  });

  it('serves the configured HOST, and refuses other names', async () => {
    assert.equal((await ask(named, { path: '/_profiler', headers: { host: 'box.example.test:8443' } })).status, 200);
    assertRefused(await ask(named, { path: '/_profiler', headers: { host: REBOUND } }), REBOUND, REBOUND);
  });

  it("believes no X-Forwarded-Host that vigil's TRUSTED_PROXIES did not send, whatever the application trusts", async () => {
    const answer = await ask(named, {
      path: '/_profiler/latest',
      headers: { host: REBOUND, 'x-forwarded-host': 'localhost' },
    });
    assertRefused(answer, REBOUND, 'forwarded localhost');
  });
});
