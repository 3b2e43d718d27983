/**
 * Issue 12, item 3: vigil behind nginx as `deploy/nginx.conf` has it. TLS ends at nginx, two
 * instances serve plain HTTP upstream, trust only nginx's address, and share one report store.
 * Run by `npm run test:deploy` (not by `npm test`: it needs Debian's nginx).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:http2';
import { Agent, get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TOKEN_PATTERN } from '../../src/profiler/tokens/token.js';
import type { Report } from '../../src/profiler/model/report.js';
import { debugMessage, tokenOf } from '../support/answers.js';
import { ask, startService, type Service } from '../support/service.js';
import { startNginx, type Nginx } from './nginx-proxy.js';

/** The address deploy/nginx.conf connects upstream from (`proxy_bind`): the instances trust it alone. */
const NGINX_ADDRESS = '127.0.0.2';

/** What a client could claim to a vigil instance to pass for someone else, somewhere else. */
const FORGED = {
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'forged.example:444',
  'x-forwarded-for': '203.0.113.9',
  'x-forwarded-port': '444',
};

describe('vigil behind nginx (deploy/nginx.conf)', () => {
  let instances: Service[] = [];
  let nginx: Nginx;

  before(async () => {
    const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'vigil-deploy-')), 'profiler.sqlite')}`;
    const env = {
      TLS: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: NGINX_ADDRESS,
      PROFILER_DSN: store,
      ROUTES: 'test/fixtures/instance-routes.ts',
    };
    instances = await Promise.all([startService(env), startService(env)]);
    nginx = await startNginx(instances.map((instance) => instance.port));
  });
  after(async () => {
    await nginx?.stop();
    await Promise.all(instances.map((instance) => instance.stop()));
  });

  /** The stored report of `token`, read from `where` (nginx or an instance) as JSON. */
  async function reportOn(where: Pick<Service, 'url' | 'ca'>, token: string): Promise<Report> {
    const answer = await ask(where, { path: `/_profiler/${token}`, headers: { accept: 'application/json' } });
    assert.equal(answer.status, 200, `report ${token} on ${where.url}: ${answer.status} ${debugMessage(answer)}`);
    return JSON.parse(answer.body) as Report;
  }

  /**
   * Writes what each instance has answered so far: a profiler list flushes the writer before
   * it searches. Reports wait a few milliseconds for companions before they are written, and a
   * report queued on one instance is not yet in the store the other reads.
   */
  async function settle(): Promise<void> {
    for (const instance of instances)
      assert.equal((await ask(instance, { path: '/_profiler', headers: { accept: 'application/json' } })).status, 200);
  }

  it('shows the public https URL in the 404 message, not the upstream http one', async () => {
    const answer = await ask(nginx, { path: '/robots.txt' });
    assert.equal(answer.status, 404);
    assert.equal(debugMessage(answer), `No route found for "GET ${nginx.url}/robots.txt"`);
    assert.ok(answer.body.includes(`${nginx.url}/robots.txt`), answer.body);
    await settle();
    const report = await reportOn(nginx, tokenOf(answer));
    assert.equal(report.url, `${nginx.url}/robots.txt`);
    assert.equal(report.ip, '127.0.0.1', "the client's address, not nginx's");
  });

  it('opens a token minted through nginx through nginx and directly on either instance', async () => {
    const minted = await ask(nginx, { path: '/robots.txt?minted' });
    const token = tokenOf(minted);
    assert.match(token, TOKEN_PATTERN);
    assert.equal(minted.headers['x-debug-token-link'], `${nginx.url}/_profiler/${token}`);
    await settle();
    // Twice through nginx: round robin sends the two to different instances.
    for (const where of [nginx, nginx, ...instances]) {
      const report = await reportOn(where, token);
      assert.equal(report.token, token);
      assert.equal(report.url, `${nginx.url}/robots.txt?minted`);
    }
  });

  it('ignores X-Forwarded-* from a peer other than nginx, and replaces those a client sends through nginx', async () => {
    for (const instance of instances) {
      const answer = await ask(instance, { path: '/robots.txt', headers: FORGED });
      const token = tokenOf(answer);
      assert.equal(debugMessage(answer), `No route found for "GET ${instance.url}/robots.txt"`);
      assert.equal(answer.headers['x-debug-token-link'], `${instance.url}/_profiler/${token}`);
      await settle();
      const report = await reportOn(instance, token);
      assert.equal(report.url, `${instance.url}/robots.txt`);
      assert.equal(report.ip, '127.0.0.1');
    }
    const through = await ask(nginx, { path: '/robots.txt', headers: FORGED });
    assert.equal(debugMessage(through), `No route found for "GET ${nginx.url}/robots.txt"`);
    await settle();
    assert.equal(
      (await reportOn(nginx, tokenOf(through))).ip,
      '127.0.0.1',
      'the address nginx saw, not the one the client claimed',
    );
  });

  it('sends requests to both instances in turn, and passes the debug headers through intact, over HTTP/1.1 and HTTP/2', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await ask(nginx, { path: '/instance' });
      assert.equal(answer.status, 200);
      ports.push((JSON.parse(answer.body) as { port: number }).port);
      const token = tokenOf(answer);
      assert.match(token, TOKEN_PATTERN);
      assert.equal(answer.headers['x-debug-token-link'], `${nginx.url}/_profiler/${token}`);
    }
    const [first, second] = instances.map((instance) => instance.port);
    assert.deepEqual(
      ports.toSorted(),
      [first!, first!, second!, second!].toSorted(),
      `answered by ${ports.join(', ')}`,
    );

    const session = connect(nginx.url, { ca: nginx.ca });
    try {
      const headers = await new Promise<Record<string, unknown>>((resolvePromise, reject) => {
        const stream = session.request({ ':path': '/robots.txt' });
        stream.once('response', (received) => {
          stream.resume();
          stream.once('end', () => resolvePromise(received));
        });
        stream.once('error', reject);
      });
      assert.equal(headers[':status'], 404);
      assert.equal(debugMessage({ headers }), `No route found for "GET ${nginx.url}/robots.txt"`);
      assert.equal(headers['x-debug-token-link'], `${nginx.url}/_profiler/${tokenOf({ headers })}`);
    } finally {
      session.close();
    }
  });

  it('keeps its connections to the instances open between requests, and makes them from its own address', async () => {
    // One client connection: one nginx worker, whose idle upstream connections are its own.
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: nginx.ca });
    const tokens: string[] = [];
    try {
      for (let i = 0; i < 8; i++) {
        tokens.push(
          await new Promise<string>((resolvePromise, reject) => {
            get(`${nginx.url}/robots.txt?keepalive=${i}`, { agent }, (res) => {
              res.resume();
              res.once('end', () => resolvePromise(tokenOf(res)));
            }).once('error', reject);
          }),
        );
      }
    } finally {
      agent.destroy();
    }
    await settle();
    const peers = new Set<string>();
    for (const token of tokens) {
      const { remoteAddress, remotePort } = (await reportOn(instances[0]!, token)).collectors.request as {
        remoteAddress: string;
        remotePort: number;
      };
      assert.equal(remoteAddress, NGINX_ADDRESS);
      peers.add(`${remoteAddress}:${remotePort}`);
    }
    assert.equal(peers.size, 2, `8 requests came over ${peers.size} connections: ${[...peers].join(', ')}`);
  });
});
