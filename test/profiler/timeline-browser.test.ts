/**
 * Issue 15 in a real browser (Chromium through playwright-core): the performance panel's
 * waterfall of kernel stages and application spans, its threshold filter, and the demo
 * collector's panel with its badge in the menu. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service } from '../support/service.js';

let service: Service;
let browser: Browser;
/** What the browser complained about (a style the CSP blocked, a failed load). */
const complaints: string[] = [];

before(async () => {
  service = await startInProcess({ ROUTES: 'examples/demo-routes.ts' });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await service?.stop();
});

async function tab(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') complaints.push(message.text());
  });
  return { context, page };
}

const names = (page: Page) =>
  page.locator('#timeline tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-name')));

describe('the performance panel draws stages and spans as one waterfall', () => {
  it('shows a bar per stage and span, placed by its start, and the threshold hides the short spans', async (t) => {
    const answer = await ask(service, { path: '/demo/spans' });
    const token = String(answer.headers['x-debug-token']);
    const { context, page } = await tab();
    try {
      await page.goto(`${service.url}/_profiler/${token}?panel=performance`);
      assert.deepEqual(await names(page), [
        'routing',
        'body',
        'handler',
        'load user',
        'render page',
        'query orders',
        'template',
        'cache write',
        'sending',
      ]);
      const box = async (name: string) => (await page.locator(`#timeline tr[data-name="${name}"] .bar`).boundingBox())!;
      for (const name of ['handler', 'load user', 'render page', 'query orders']) {
        const bar = await box(name);
        assert.ok(bar.width > 20 && bar.height > 5, `${name} bar is drawn: ${JSON.stringify(bar)}`);
      }
      // A later span's bar starts further right; a nested one starts within its parent.
      const [load, render, query] = [await box('load user'), await box('render page'), await box('query orders')];
      assert.ok(render.x >= load.x + load.width - 1, 'render page starts after load user ends');
      assert.ok(
        query.x >= render.x && query.x + query.width <= render.x + render.width + 1,
        'query orders sits inside render page',
      );
      const file = screenshotPath('profiler-timeline.png');
      await page.screenshot({ path: file, fullPage: true });
      t.diagnostic(`screenshot: ${file}`);

      await page.locator('input[name="threshold"]').fill('5');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/threshold=5/);
      assert.deepEqual(await names(page), [
        'routing',
        'body',
        'handler',
        'load user',
        'render page',
        'query orders',
        'sending',
      ]);
      assert.match((await page.locator('#hidden-spans').textContent()) ?? '', /^2 spans shorter than 5 ms hidden\.$/);
      const filtered = screenshotPath('profiler-timeline-threshold.png');
      await page.screenshot({ path: filtered, fullPage: true });
      t.diagnostic(`screenshot: ${filtered}`);
    } finally {
      await context.close();
    }
    assert.deepEqual(complaints, []);
  });
});

describe("a collector's own panel, with its badge in the menu", () => {
  it('shows the badge in its status colour, and the panel under the menu’s title', async (t) => {
    const answer = await ask(service, {
      path: '/hello',
      headers: { 'user-agent': 'browser-test/1', 'accept-language': 'fr, en;q=0.5, de;q=0.25' },
    });
    const token = String(answer.headers['x-debug-token']);
    const { context, page } = await tab();
    try {
      await page.goto(`${service.url}/_profiler/${token}`);
      const entry = page.locator('.menu a[href$="panel=client"]');
      const badge = entry.locator('.pill');
      assert.ok(await badge.isVisible(), 'the badge is shown');
      assert.equal(await badge.textContent(), '3');
      // The `ok` status colour of the light theme.
      assert.equal(await badge.evaluate((element) => getComputedStyle(element).color), 'rgb(26, 127, 55)');
      await entry.click();
      await page.waitForURL(/panel=client/);
      assert.equal(
        await page.locator('section#panel-client h2').textContent(),
        await entry.locator('span').first().textContent(),
      );
      assert.deepEqual(await page.locator('section#panel-client table.records thead th').allTextContents(), [
        'tag',
        'quality',
      ]);
      assert.deepEqual(
        await page.locator('section#panel-client table.records tbody tr td:last-child').allTextContents(),
        ['1', '0.5', '0.25'],
      );
      const file = screenshotPath('profiler-custom-panel.png');
      await page.screenshot({ path: file, fullPage: true });
      t.diagnostic(`screenshot: ${file}`);
    } finally {
      await context.close();
    }
    assert.deepEqual(complaints, []);
  });
});
