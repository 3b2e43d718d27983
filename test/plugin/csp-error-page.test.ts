/**
 * The kernel's error pages under the application's strict CSP (`@fastify/helmet` with
 * `style-src 'self'`): their one `<style>` element is admitted by the response's policy, so
 * the page is styled in Chromium and the policy reports nothing, as the toolbar is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { launchChromium } from '../support/browser.js';
import { ask } from '../support/service.js';

const apps: FastifyInstance[] = [];
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await Promise.all(apps.map((app) => app.close()));
});

async function startApp(env: Record<string, string>): Promise<{ url: string; ca: undefined }> {
  const config = loadConfig({
    TLS: '0',
    LOG_LEVEL: 'error',
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-csp-')),
    ...env,
  });
  const app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  apps.push(app);
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  await app.register(helmet, { contentSecurityPolicy: { directives: { 'style-src': ["'self'"] } } });
  app.get('/boom', async () => {
    throw new Error('native failure');
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, ca: undefined };
}

/** The page's heading colour in Chromium, and what the policy blocked. */
async function seen(url: string): Promise<{ status: number; color: string; violations: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  try {
    const response = await page.goto(url);
    const color = await page.locator('h1').evaluate((element) => getComputedStyle(element).color);
    return { status: response!.status(), color, violations };
  } finally {
    await context.close();
  }
}

describe("the error page is styled under the application's strict CSP", () => {
  for (const mode of ['dev', 'prod']) {
    it(`the 500 of a route that threw (${mode}): its style admitted, nothing blocked`, async () => {
      const app = await startApp({ APP_ENV: mode });
      const answer = await ask(app, { path: '/boom', headers: { accept: 'text/html' } });
      assert.equal(answer.status, 500);
      const policy = String(answer.headers['content-security-policy']);
      assert.match(policy, /style-src 'self'/, "the application's policy is kept");
      assert.match(policy, /style-src-elem 'self' 'sha256-/, policy);
      const { status, color, violations } = await seen(`${app.url}/boom`);
      assert.equal(status, 500);
      assert.deepEqual(violations, []);
      assert.equal(color, 'rgb(180, 35, 24)', "the heading has the page's accent colour");
    });
  }
});
