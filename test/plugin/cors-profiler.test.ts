/**
 * Issue 41, item 1: an application's `@fastify/cors` (at its defaults, or echoing the origin
 * with credentials) never opens the profiler to another origin. The profiler's answers carry
 * no `Access-Control-*` header whoever set it, and `Cross-Origin-Resource-Policy: same-origin`;
 * a request another site's page makes (`Sec-Fetch-Site: cross-site`) is refused outright.
 * Over real sockets, and from a page on another origin in a real Chromium.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { tokenOf } from '../support/answers.js';
import { launchChromium } from '../support/browser.js';
import { ask, type Answer } from '../support/service.js';

interface App {
  url: string;
  ca: undefined;
}

const apps: FastifyInstance[] = [];
after(() => Promise.all(apps.map((app) => app.close())));

/** An application as docs/plugin.md has it, with the cross-origin plugin registered after vigil. */
async function startApp(plugins: (app: FastifyInstance) => unknown): Promise<App> {
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-cors-')) });
  const app = Fastify(vigilFastifyOptions(config));
  apps.push(app);
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  await plugins(app);
  app.get('/hello', async () => ({ hello: 'world' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, ca: undefined };
}

const FOREIGN = 'http://foreign.example';
const corsAt = (options: FastifyCorsOptions) => (app: FastifyInstance) => app.register(cors, options);

const SETUPS: Array<[string, (app: FastifyInstance) => unknown]> = [
  ['@fastify/cors at its defaults', corsAt({})],
  ['@fastify/cors with origin: true, credentials: true', corsAt({ origin: true, credentials: true })],
  ['@fastify/cors in a preHandler hook', corsAt({ origin: true, credentials: true, hook: 'preHandler' })],
];

/** Every profiler page, in HTML and JSON, as a foreign origin asks for it. */
async function profilerAnswers(app: App): Promise<Array<[string, Answer]>> {
  const token = tokenOf(await ask(app, { path: '/hello' }));
  const answers: Array<[string, Answer]> = [];
  for (const path of ['/_profiler', '/_profiler/search?url=hello', '/_profiler/latest', `/_profiler/${token}`]) {
    for (const accept of ['text/html', 'application/json']) {
      const answer = await ask(app, { path, headers: { origin: FOREIGN, accept } });
      answers.push([`${path} (${accept})`, answer]);
    }
  }
  return answers;
}

function crossOriginHeaders(answer: Answer): string[] {
  return Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'));
}

for (const [name, setup] of SETUPS) {
  describe(`the profiler grants no origin anything beside ${name}`, () => {
    let app: App;
    before(async () => {
      app = await startApp(setup);
    });

    it("still gives the application's own routes its policy", async () => {
      const answer = await ask(app, { path: '/hello', headers: { origin: FOREIGN } });
      assert.ok(answer.headers['access-control-allow-origin'], 'the application keeps its CORS');
    });

    it('sends no Access-Control-* header on any page, and Cross-Origin-Resource-Policy: same-origin', async () => {
      for (const [what, answer] of await profilerAnswers(app)) {
        assert.equal(answer.status, 200, what);
        assert.deepEqual(crossOriginHeaders(answer), [], what);
        assert.equal(answer.headers['cross-origin-resource-policy'], 'same-origin', what);
        assert.equal(answer.headers['cache-control'], 'no-store', what);
      }
    });

    it('grants no preflight to a profiler page, and no header on its errors', async () => {
      const preflight = await ask(app, {
        method: 'OPTIONS',
        path: '/_profiler/search',
        headers: { origin: FOREIGN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-a' },
      });
      assert.deepEqual(crossOriginHeaders(preflight), []);
      const missing = await ask(app, { path: '/_profiler/ffffff', headers: { origin: FOREIGN } });
      assert.equal(missing.status, 404);
      assert.deepEqual(crossOriginHeaders(missing), []);
    });
  });
}

describe("the profiler's headers stand beside @fastify/helmet registered after vigil", () => {
  it('keeps its own policy, frame and resource headers', async () => {
    const app = await startApp((instance) => instance.register(helmet, { crossOriginResourcePolicy: false }));
    const answer = await ask(app, { path: '/_profiler' });
    assert.match(String(answer.headers['content-security-policy']), /^default-src 'none'/);
    assert.equal(answer.headers['x-frame-options'], 'DENY');
    assert.equal(answer.headers['cross-origin-resource-policy'], 'same-origin');
  });
});

describe('a request made by a page of another site is refused', () => {
  let app: App;
  before(async () => {
    app = await startApp(corsAt({ origin: true, credentials: true }));
  });

  it('answers 403 saying why, with nothing of the store', async () => {
    for (const path of ['/_profiler', '/_profiler/search?url=hello&status_code=599', '/_profiler/latest']) {
      const answer = await ask(app, {
        path,
        headers: { 'sec-fetch-site': 'cross-site', accept: 'application/json', origin: FOREIGN },
      });
      assert.equal(answer.status, 403, path);
      assert.match(JSON.parse(answer.body).detail, /another site \(Sec-Fetch-Site: cross-site\)/, path);
      assert.doesNotMatch(answer.body, /"token":/, path);
      assert.deepEqual(crossOriginHeaders(answer), [], path);
    }
  });

  it('answers the same site, the same origin and a typed address', async () => {
    for (const site of ['same-origin', 'same-site', 'none']) {
      const answer = await ask(app, { path: '/_profiler', headers: { 'sec-fetch-site': site } });
      assert.equal(answer.status, 200, site);
    }
  });
});

describe('in Chromium, a page on another origin cannot read the profiler of an application with @fastify/cors', () => {
  let browser: Browser;
  let pages: Server;
  let app: App;
  // The page fetches `?path=` from the application with its cookies and shows what it read.
  const page = (url: string) => `<!DOCTYPE html><html><body><pre id="out">pending</pre><script>
fetch(${JSON.stringify(url)}, { credentials: 'include', headers: { accept: 'application/json' } })
  .then(async (response) => { document.getElementById('out').textContent = 'read ' + response.status + ' ' + (await response.text()).slice(0, 40); })
  .catch((error) => { document.getElementById('out').textContent = 'refused ' + error.name; });
</script></body></html>`;

  before(async () => {
    app = await startApp(corsAt({ origin: true, credentials: true }));
    pages = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').searchParams.get('path') ?? '/';
      response.writeHead(200, { 'content-type': 'text/html' }).end(page(app.url + path));
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    pages?.close();
  });

  async function outcomeOf(path: string): Promise<string> {
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      // localhost against 127.0.0.1: another origin, and another site.
      await tab.goto(`http://localhost:${(pages.address() as AddressInfo).port}/?path=${encodeURIComponent(path)}`);
      await tab.waitForFunction(() => document.getElementById('out')?.textContent !== 'pending', undefined, {
        timeout: 10_000,
      });
      return (await tab.textContent('#out')) ?? '';
    } finally {
      await context.close();
    }
  }

  it("reads the application's route, as its policy allows", async () => {
    assert.match(await outcomeOf('/hello'), /^read 200 /);
  });

  it('is refused the list, the search, the newest report and a report', async () => {
    const token = tokenOf(await ask(app, { path: '/hello' }));
    for (const path of ['/_profiler', '/_profiler/search?url=hello', '/_profiler/latest', `/_profiler/${token}`]) {
      assert.equal(await outcomeOf(path), 'refused TypeError', path);
    }
  });
});
