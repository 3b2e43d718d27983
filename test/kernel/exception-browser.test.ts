/**
 * Issue 15, item 1, in a real browser (Chromium through playwright-core): the cause chain is
 * visible on the debug page and in the exception panel, and the folded kernel frames open
 * with one click, without any script. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { startInProcess } from '../support/in-process-service.js';
import type { Service } from '../support/service.js';

let service: Service;
let browser: Browser;
/** Whatever the browser complained about besides the expected 500. */
const complaints: string[] = [];

before(async () => {
  service = await startInProcess({ ROUTES: 'examples/demo-routes.ts', VIGIL_IDE: 'vscode' });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await service?.stop();
});

async function tab(colorScheme: 'light' | 'dark' = 'light'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    colorScheme,
    viewport: { width: 1280, height: 900 },
    javaScriptEnabled: false,
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().includes('status of 500')) complaints.push(message.text());
  });
  return { context, page };
}

describe('the debug page shows the cause chain', () => {
  it('shows each cause with its class, message and raise site', async (t) => {
    const { context, page } = await tab();
    try {
      const response = await page.goto(`${service.url}/demo/cause`);
      assert.equal(response?.status(), 500);
      const causes = page.locator('section.related');
      assert.equal(await causes.count(), 2);
      assert.equal(await causes.nth(0).locator('h2').textContent(), 'Caused by TypeError');
      assert.ok(await causes.nth(0).locator('p.message').isVisible());
      assert.equal(
        await causes.nth(0).locator('p.message').textContent(),
        'The database client could not connect to db.internal',
      );
      assert.match(
        (await causes.nth(0).locator('p.site').textContent()) ?? '',
        /^Raised at .*examples\/demo-routes\.ts:\d+$/,
      );
      assert.equal(await causes.nth(1).locator('p.message').textContent(), 'connect ECONNREFUSED db.internal:5432');
      assert.ok(await causes.nth(1).locator('p.message').isVisible());
      const link = causes.nth(0).locator('p.site a');
      assert.match((await link.getAttribute('href')) ?? '', /^vscode:\/\/file\/.*examples\/demo-routes\.ts:\d+$/);
      const file = screenshotPath('error-page-cause-chain.png');
      await page.screenshot({ path: file, fullPage: true });
      t.diagnostic(`screenshot: ${file}`);
    } finally {
      await context.close();
    }
  });
});

describe('the folded kernel frames open with one click', () => {
  it('hides the kernel frames until their summary is clicked', async (t) => {
    const { context, page } = await tab();
    try {
      await page.goto(`${service.url}/demo/cause`);
      // The first fold with the kernel's frames: under load, one of Node's own frames may come before them.
      const fold = page.locator('main > ol.trace > li.folded', { has: page.locator('li.kernel') }).first();
      const summary = fold.locator(':scope > details > summary');
      assert.match((await summary.textContent()) ?? '', /^(\d+ frames? outside the project, )?\d+ vigil frames?/);
      const firstKernelFrame = fold.locator('li.kernel').first();
      assert.equal(await firstKernelFrame.isVisible(), false, 'folded at first');
      assert.ok(
        await page.locator('main > ol.trace > li.app').first().isVisible(),
        "the application's frame is in view",
      );
      const before = screenshotPath('error-page-frames-folded.png');
      await page.screenshot({ path: before, fullPage: true });
      await summary.click();
      assert.equal(await firstKernelFrame.isVisible(), true, 'open after one click');
      assert.match((await firstKernelFrame.locator('summary').textContent()) ?? '', /src\/.*\.ts:\d+/);
      const after = screenshotPath('error-page-frames-opened.png');
      await page.screenshot({ path: after, fullPage: true });
      t.diagnostic(`screenshots: ${before}, ${after}`);
    } finally {
      await context.close();
    }
  });
});

describe('the exception panel shows the chain too', () => {
  it('follows the report link to the panel, which lists the causes', async (t) => {
    const { context, page } = await tab('dark');
    try {
      const response = await page.goto(`${service.url}/demo/aggregate`);
      const token = String(response!.headers()['x-debug-token']);
      await page.getByRole('link', { name: `View the debug report ${token}` }).click();
      await page.waitForURL(`${service.url}/_profiler/${token}`);
      const members = page.locator('section#panel-exception section.related');
      assert.equal(await members.count(), 2);
      assert.equal(await members.nth(0).locator('h3').textContent(), 'Error 1 of 2 RangeError');
      assert.equal(await members.nth(1).locator('p.message').textContent(), 'The fallback price source timed out');
      assert.ok(await members.nth(1).locator('p.message').isVisible());
      const file = screenshotPath('profiler-exception-aggregate-dark.png');
      await page.screenshot({ path: file, fullPage: true });
      t.diagnostic(`screenshot: ${file}`);
    } finally {
      await context.close();
    }
    assert.deepEqual(complaints, []);
  });
});
