/**
 * The web debug toolbar on the demo's `/page`: in the page's HTML under its strict CSP, seen
 * in Chromium with its link followed to the report; and nowhere else (text, JSON, the kernel's
 * own pages, production, PROFILER_TOOLBAR=0). Screenshot: test-artifacts/toolbar.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { tokenOf } from '../support/answers.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service } from '../support/service.js';
import { startTogether } from '../support/start-together.js';

const BAR = 'id="vigil-toolbar"';

interface Preview {
  kind: string;
  text?: string;
}

let debug: Service;
let prod: Service;
let off: Service;
let browser: Browser;
before(async () => {
  [debug, prod, off, browser] = await startTogether<[Service, Service, Service, Browser]>(
    [
      startInProcess({ ROUTES: 'test/fixtures/toolbar-routes.ts' }),
      startInProcess({ ROUTES: 'examples/demo-routes.ts', APP_ENV: 'prod' }),
      startInProcess({ ROUTES: 'examples/demo-routes.ts', PROFILER_TOOLBAR: '0' }),
      launchChromium(),
    ],
    (started) => ('stop' in started ? started.stop() : started.close()),
  );
});
after(async () => {
  await browser?.close();
  await Promise.all([debug?.stop(), prod?.stop(), off?.stop()]);
});

describe("in debug mode the application's HTML page carries the toolbar", () => {
  it("puts it before </body>, with its style and script admitted by a nonce in style-src-elem and script-src-elem of the page's own CSP", async () => {
    const answer = await ask(debug, { path: '/page' });
    assert.equal(answer.status, 200);
    const at = answer.body.indexOf(BAR);
    assert.ok(at > 0 && at < answer.body.lastIndexOf('</body>'), answer.body);
    assert.ok(
      answer.body.includes(
        `<a class="vt-report" href="${answer.headers['x-debug-token-link']}">report ${tokenOf(answer)}</a>`,
      ),
    );
    const nonce = /<style nonce="([^"]+)">/.exec(answer.body)?.[1];
    assert.ok(nonce);
    assert.equal(
      answer.headers['content-security-policy'],
      `default-src 'none'; style-src-elem 'nonce-${nonce}'; script-src-elem 'nonce-${nonce}'`,
    );
    // The recorder, in the head, sees the calls of the page's own scripts.
    assert.ok(answer.body.indexOf(`<script nonce="${nonce}">`) < answer.body.indexOf('</head>'), answer.body);
  });

  it('admits it in each of two comma-joined policies, and Chromium applies its style under both', async () => {
    const answer = await ask(debug, { path: '/page-two-policies' });
    const nonce = /<style nonce="([^"]+)">/.exec(answer.body)?.[1];
    assert.ok(nonce, answer.body);
    assert.equal(
      answer.headers['content-security-policy'],
      `default-src 'self'; style-src-elem 'self' 'nonce-${nonce}'; script-src-elem 'self' 'nonce-${nonce}', style-src 'none'; img-src data:; style-src-elem 'nonce-${nonce}'`,
    );
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const complaints: string[] = [];
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') complaints.push(message.text());
    });
    try {
      await page.goto(`${debug.url}/page-two-policies`);
      const bar = page.getByRole('region', { name: 'vigil debug toolbar' });
      assert.equal(await bar.evaluate((element) => getComputedStyle(element).backgroundColor), 'rgb(27, 29, 35)');
      assert.deepEqual(complaints, [], 'neither policy blocked the bar');
    } finally {
      await context.close();
    }
  });

  it('leaves out the bar from a page with a policy in a <meta> element, which cannot be given the nonce', async () => {
    const answer = await ask(debug, { path: '/page-meta-policy' });
    assert.equal(answer.status, 200);
    assert.ok(!answer.body.includes(BAR), answer.body);
  });

  it('is seen in Chromium at the foot of the page, and its link opens the report', async (t) => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1000, height: 600 } });
    const complaints: string[] = [];
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') complaints.push(message.text());
    });
    try {
      const response = await page.goto(`${debug.url}/page`);
      const token = String(response!.headers()['x-debug-token']);
      const bar = page.getByRole('region', { name: 'vigil debug toolbar' });
      assert.ok(await bar.isVisible());
      const box = (await bar.boundingBox())!;
      assert.equal(Math.round(box.y + box.height), 600, 'fixed to the bottom of the window');
      assert.equal(
        await bar.evaluate((element) => getComputedStyle(element).backgroundColor),
        'rgb(27, 29, 35)',
        'its style applied under the CSP',
      );
      assert.equal(await bar.getByTitle('Status').textContent(), '200');
      assert.equal(await bar.getByTitle('Route').textContent(), 'GET /page');
      assert.deepEqual(complaints, [], 'the CSP blocked nothing');
      const file = screenshotPath('toolbar.png');
      await page.screenshot({ path: file });
      t.diagnostic(`screenshot: ${file}`);
      await bar.getByRole('link', { name: `report ${token}` }).click();
      await page.waitForURL(`${debug.url}/_profiler/${token}`);
      assert.equal(await page.title(), `GET ${debug.url}/page (200) - vigil profiler`, 'the report of the page');
      assert.equal(
        await page.getByRole('region', { name: 'vigil debug toolbar' }).count(),
        0,
        "not on the profiler's own page",
      );
    } finally {
      await context.close();
    }
  });
});

describe('the toolbar is nowhere else', () => {
  it("leaves the report's response preview as the application answered, without the bar", async () => {
    // The profiler's onSend keeps the body before the toolbar's puts the bar in (kernel-hooks.ts).
    const answer = await ask(debug, { path: '/page' });
    assert.ok(answer.body.includes(BAR));
    const json = await ask(debug, { path: `/_profiler/${tokenOf(answer)}`, headers: { accept: 'application/json' } });
    const { preview } = (JSON.parse(json.body) as { collectors: { response: { preview: Preview } } }).collectors
      .response;
    assert.equal(preview.kind, 'text');
    assert.ok(preview.text!.includes('</body>') && !preview.text!.includes(BAR), preview.text);
  });

  it("not on text, JSON, the kernel's error page or the profiler's pages", async () => {
    // A 404 and the 500 of a route that failed: both are the kernel's pages.
    for (const path of ['/hello', '/items', '/nope', '/demo/cause']) {
      const answer = await ask(debug, { path, headers: { accept: 'text/html' } });
      assert.ok(!answer.body.includes(BAR), `${path}: ${answer.body.slice(0, 200)}`);
      assert.ok(!answer.body.includes('<script'), `${path}: no script`);
    }
    const list = await ask(debug, { path: '/_profiler' });
    assert.equal(list.status, 200);
    assert.ok(!list.body.includes(BAR));
  });

  it('not in production, and not with PROFILER_TOOLBAR=0', async () => {
    for (const service of [prod, off]) {
      const answer = await ask(service, { path: '/page' });
      assert.equal(answer.status, 200);
      assert.ok(answer.body.endsWith('</body></html>') && !answer.body.includes(BAR));
      assert.ok(!answer.body.includes('<script'), 'a page without the bar stays script-free');
      assert.equal(answer.headers['content-security-policy'], "default-src 'none'", "the page's policy as it set it");
    }
  });
});
