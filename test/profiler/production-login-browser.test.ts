/**
 * Issue 45, item 3, in a real browser (Chromium through playwright-core): the production
 * profiler's login page takes PROFILER_SECRET under the pages' Content-Security-Policy,
 * sets its session cookie and goes on to the newest reports; a browser without the cookie
 * meets the ordinary 404. Screenshot of the login page in test-artifacts/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { SecretCredentials } from '../../src/profiler/access/credentials.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { startService, type Service } from '../support/service.js';

const SECRET = 'a browser-typed secret of at least 32 characters';

let service: Service;
let browser: Browser;

before(async () => {
  service = await startService({ APP_ENV: 'prod', PROFILER_SECRET: SECRET });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await service?.stop();
});

describe('the login page opens a browser session', () => {
  it('logs in with the secret, and the session cookie opens the pages', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1024, height: 600 } });
    const complaints: string[] = [];
    try {
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error') complaints.push(message.text());
      });
      const login = await page.goto(`${service.url}/_profiler/login?key=${new SecretCredentials(SECRET).loginKey}`);
      assert.equal(login?.status(), 200);
      await page.screenshot({ path: screenshotPath('production-login.png') });
      await page.getByLabel('PROFILER_SECRET').fill(SECRET);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`${service.url}/_profiler`);
      assert.equal(await page.locator('h1').textContent(), 'Latest requests');
      const [cookie] = await context.cookies();
      assert.equal(cookie?.name, 'vigil_profiler_session');
      assert.deepEqual(
        [cookie?.httpOnly, cookie?.secure, cookie?.sameSite, cookie?.path],
        [true, true, 'Strict', '/_profiler'],
      );
      assert.deepEqual(complaints, []);
    } finally {
      await context.close();
    }
  });

  it('gives a browser without the session the ordinary 404', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      const profiler = await page.goto(`${service.url}/_profiler`);
      const profilerBody = await page.content();
      const unrouted = await page.goto(`${service.url}/no-such-page`);
      assert.equal(profiler?.status(), 404);
      assert.equal(unrouted?.status(), 404);
      assert.equal(profilerBody, await page.content());
    } finally {
      await context.close();
    }
  });
});
