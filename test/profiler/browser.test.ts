/**
 * Issue 3 end to end in a real browser (Debian's Chromium through playwright-core): from a
 * 404 debug page to its report, and from the search form to the same report. Screenshots
 * of the list and of a report go to test-artifacts/ (light and dark).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { startInProcess } from '../support/in-process-service.js';
import type { Service } from '../support/service.js';

let service: Service;
let browser: Browser;
let token = '';
/** Whatever the browser complained about (a style blocked by the CSP, a failed load). */
const complaints: string[] = [];

before(async () => {
  service = await startInProcess({ ROUTES: 'test/fixtures/failing-routes.ts' });
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
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    // The 404 page itself is an expected failed load; anything else is a complaint.
    if (message.type() === 'error' && !message.text().includes('status of 404')) complaints.push(message.text());
  });
  return { context, page };
}

describe('a 404 debug page links to its report, which opens on the exception panel', () => {
  it('follows the link from the error page to the exception panel', async (t) => {
    const { context, page } = await tab();
    try {
      const response = await page.goto(`${service.url}/robots.txt?from=browser`);
      assert.equal(response?.status(), 404);
      assert.equal(await page.title(), 'Error 404 Not Found');
      token = String(response!.headers()['x-debug-token']);
      await page.getByRole('link', { name: `View the debug report ${token}` }).click();
      await page.waitForURL(`${service.url}/_profiler/${token}`);
      const panel = page.locator('section#panel-exception');
      assert.ok(await panel.isVisible(), 'the exception panel is open');
      assert.equal(await panel.locator('h2').textContent(), 'NotFoundHttpError');
      assert.equal(
        await page.locator('#exception-message').textContent(),
        `No route found for "GET ${service.url}/robots.txt"`,
      );
      assert.equal(await page.locator('.menu a[aria-current="page"] span').first().textContent(), 'Exception');
      // The inline styles were applied under the page's Content-Security-Policy.
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(background, 'rgb(245, 246, 248)');
      const file = screenshotPath('profiler-report.png');
      await page.screenshot({ path: file, fullPage: true });
      t.diagnostic(`screenshot: ${file}`);

      await page.getByRole('link', { name: /^Routing/ }).click();
      assert.equal(await page.locator('section#panel-routing h2').textContent(), 'No route matched');
      await page.getByRole('link', { name: /^Request/ }).click();
      assert.match((await page.locator('section#panel-request').textContent()) ?? '', /from\s*browser/);
    } finally {
      await context.close();
    }
  });
});

describe('the search form finds the report by status', () => {
  it('searches for status 404 and lists the token', async (t) => {
    const { context, page } = await tab();
    try {
      await page.goto(`${service.url}/_profiler`);
      await page.locator('input[name="status_code"]').fill('404');
      await page.locator('input[name="url"]').fill('from=browser');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/\/_profiler\/search\?/);
      const row = page.locator(`tr[data-token="${token}"]`);
      assert.ok(await row.isVisible(), `row of ${token}`);
      assert.equal(await page.locator('#results tbody tr').count(), 1);
      const file = screenshotPath('profiler-list.png');
      await page.screenshot({ path: file, fullPage: true });
      t.diagnostic(`screenshot: ${file}`);
      await row.getByRole('link', { name: token }).click();
      await page.waitForURL(`${service.url}/_profiler/${token}`);
    } finally {
      await context.close();
    }
  });
});

describe('the pages are readable in dark mode too', () => {
  it('switches colours with the reader’s preference', async (t) => {
    const { context, page } = await tab('dark');
    try {
      await page.goto(`${service.url}/_profiler/${token}?panel=performance`);
      assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(21, 23, 27)');
      const file = screenshotPath('profiler-report-dark.png');
      await page.screenshot({ path: file, fullPage: true });
      t.diagnostic(`screenshot: ${file}`);
      await page.goto(`${service.url}/_profiler`);
      const list = screenshotPath('profiler-list-dark.png');
      await page.screenshot({ path: list, fullPage: true });
      t.diagnostic(`screenshot: ${list}`);
    } finally {
      await context.close();
    }
    assert.deepEqual(complaints, []);
  });
});
