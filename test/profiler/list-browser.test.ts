/**
 * Issue 44 in a real browser (Chromium through playwright-core): /_profiler shows a request
 * made after it loaded, without a reload, under its own Content-Security-Policy; a whole row
 * opens its report; the exceptions page. Screenshots of both, light and dark, go to
 * test-artifacts/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { tokenOf } from '../support/answers.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service } from '../support/service.js';

let service: Service;
let browser: Browser;

before(async () => {
  service = await startInProcess({ ROUTES: 'test/fixtures/shop-routes.ts' });
  browser = await launchChromium();
  // More than the 50 the list shows: the page must not take the older ones it does not show for new ones.
  for (let i = 0; i < 50; i++) await ask(service, { path: `/hello?n=${i}` });
  for (const path of ['/api/products/1', '/api/products/7', '/api/products/19', '/api/cart/abc'])
    await ask(service, { path });
  await ask(service, { path: '/api/products/2023' });
  await ask(service, { path: '/favicon.ico' });
});
after(async () => {
  await browser?.close();
  await service?.stop();
});

/** A tab, with what the browser complained about (a script or style the policy blocked, a failed load). */
async function tab(colorScheme: 'light' | 'dark') {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    colorScheme,
    viewport: { width: 1280, height: 800 },
  });
  const page = await context.newPage();
  const complaints: string[] = [];
  page.on('console', (message) => {
    // The browser's own request for /favicon.ico is the application's 404, not the page's fault.
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) complaints.push(message.text());
  });
  page.on('pageerror', (error) => complaints.push(error.message));
  return { context, page, complaints };
}

/** The screenshot, in test-artifacts/ (docs/images/ holds copies made by hand: a test run leaves the repository as it was). */
async function screenshot(page: Page, name: string): Promise<string> {
  const file = screenshotPath(name);
  // The window, not the whole page: the list runs to 50 rows.
  await page.screenshot({ path: file });
  return file;
}

describe('the list follows new requests without a reload', () => {
  it('shows a request made after the page loaded, and its whole row opens its report', async (t) => {
    const { context, page, complaints } = await tab('light');
    try {
      let navigations = 0;
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) navigations++;
      });
      await page.goto(`${service.url}/_profiler`);
      assert.equal(navigations, 1);
      const rowsBefore = await page.locator('#results-body tr').count();
      const fresh = tokenOf(await ask(service, { path: '/api/products/31' }));
      // Polls the DOM for up to 5 s: the page asks every 2 s.
      await page.waitForSelector(`#results-body tr[data-token="${fresh}"]`, { timeout: 5000 });
      assert.equal(navigations, 1, 'the page was not reloaded');
      assert.equal(await page.locator('#results-body tr').first().getAttribute('data-token'), fresh);
      await page.waitForSelector('#live[data-state="on"]');
      const tokens = await page
        .locator('#results-body tr')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-token')));
      assert.equal(rowsBefore, 50);
      assert.equal(tokens.length, 50, 'the oldest row left as the new one came');
      assert.equal(new Set(tokens).size, 50, 'no report is shown twice');
      const newest = await ask(service, {
        path: '/_profiler/search?limit=50',
        headers: { accept: 'application/json' },
      });
      assert.deepEqual(
        tokens,
        (JSON.parse(newest.body) as Array<{ token: string }>).map((r) => r.token),
        'the 50 newest, newest first',
      );
      const row = page.locator(`#results-body tr[data-token="${fresh}"]`);
      assert.deepEqual(
        (await row.locator('td').allInnerTexts()).slice(1, 5).map((text) => text.trim()),
        ['GET', `${service.url}/api/products/31`, '/api/products/{id}', 'TypeError'],
      );
      await page.waitForSelector('#live[data-state="on"]');
      assert.deepEqual(complaints, []);
      t.diagnostic(`screenshot: ${await screenshot(page, 'profiler-live-list-light.png')}`);

      // A click anywhere on the row (here on its route) opens the report: the token's link covers the row.
      const route = (await row.locator('td').nth(3).boundingBox())!;
      await page.mouse.click(route.x + route.width / 2, route.y + route.height / 2);
      await page.waitForURL(`${service.url}/_profiler/${fresh}`);
    } finally {
      await context.close();
    }
  });

  it('hides favicon.ico until asked, in one click', async () => {
    const { context, page } = await tab('light');
    try {
      await page.goto(`${service.url}/_profiler`);
      assert.equal(await page.locator('#results-body td', { hasText: '/favicon.ico' }).count(), 0);
      await page.locator('#assets-switch').click();
      await page.waitForURL(/assets=show/);
      assert.ok((await page.locator('#results-body td', { hasText: '/favicon.ico' }).count()) > 0);
    } finally {
      await context.close();
    }
  });

  it('looks the same in the dark', async (t) => {
    const { context, page, complaints } = await tab('dark');
    try {
      await page.goto(`${service.url}/_profiler`);
      await page.waitForSelector('#live[data-state="on"]');
      assert.deepEqual(complaints, []);
      t.diagnostic(`screenshot: ${await screenshot(page, 'profiler-live-list-dark.png')}`);
    } finally {
      await context.close();
    }
  });
});

describe('the exceptions page groups the failures', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`shows one group per fingerprint, linked from the list (${scheme})`, async (t) => {
      const { context, page, complaints } = await tab(scheme);
      try {
        await page.goto(`${service.url}/_profiler`);
        await page.locator('#results-body a.group-link', { hasText: 'TypeError' }).first().click();
        await page.waitForURL(/\/_profiler\/exceptions#group-/);
        const group = page.locator('#groups tbody tr', { hasText: 'TypeError' });
        assert.equal(await group.count(), 1);
        assert.match((await group.textContent()) ?? '', /product \{n\} has no price/);
        assert.equal((await group.locator('td').nth(1).textContent())?.trim(), String(await typeErrors()));
        assert.deepEqual(complaints, []);
        t.diagnostic(`screenshot: ${await screenshot(page, `profiler-exceptions-${scheme}.png`)}`);
        await group.getByRole('link', { name: 'Occurrences' }).click();
        await page.waitForURL(/\/_profiler\/search\?fingerprint=/);
        assert.equal(await page.locator('#results-body tr').count(), await typeErrors());
      } finally {
        await context.close();
      }
    });
  }
});

/** How many TypeErrors the list holds, as the JSON search counts them. */
async function typeErrors(): Promise<number> {
  const answer = await ask(service, {
    path: '/_profiler/search?exception=TypeError',
    headers: { accept: 'application/json' },
  });
  return (JSON.parse(answer.body) as unknown[]).length;
}
