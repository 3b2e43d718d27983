/**
 * Issue 44, the toolbar in Chromium: a page whose script calls its API with fetch and XHR
 * sees its calls listed live in the bar, with their statuses and links that open their
 * reports, under a strict CSP with a nonce; each item opens its panel, the queries one
 * linking to the Database panel; minimised, it stays so across a reload. Screenshots, open
 * and minimised, light and dark: test-artifacts/toolbar-*.png.
 */
// First: the tracing set-up is in place before pg is loaded, as docs/profiler.md says.
import { provider, stopInstrumenting } from '../support/tracing.js';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { startPostgres, type PostgresServer } from '../support/postgres.js';

const pg = createRequire(import.meta.url)('pg') as typeof import('pg');

/** The page's own nonce: the bar's must be admitted beside it. */
const PAGE_NONCE = 'shop-page-nonce';
const PAGE_POLICY = `default-src 'self'; script-src 'nonce-${PAGE_NONCE}'`;

/** A page whose inline script calls the API at once, as a quick page does: the bar's recorder must already be there. */
function page(script: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>Shop</title></head><body><h1>Shop</h1><ul id="out"></ul>
<script nonce="${PAGE_NONCE}">const out = document.getElementById('out');
const show = (text) => { const item = document.createElement('li'); item.textContent = text; out.append(item); };
${script}</script></body></html>`;
}

const SHOP_SCRIPT = `for (const path of ['/api/products', '/api/product/3', '/api/broken'])
  fetch(path).then((answer) => answer.text().then((body) => show(path + ' ' + answer.status + ' ' + (body.length > 0))));
const xhr = new XMLHttpRequest();
xhr.open('GET', '/api/products?via=xhr');
xhr.onload = () => show('xhr ' + xhr.status + ' ' + (xhr.responseText.length > 0));
xhr.send();`;

let postgres: PostgresServer;
let pool: Pool;
let app: FastifyInstance;
let url: string;
let upstream: Server;
let upstreamUrl: string;
let browser: Browser;

before(async () => {
  postgres = await startPostgres();
  pool = new pg.Pool({ connectionString: await postgres.database('toolbar'), max: 2 });
  pool.on('error', () => undefined);
  // Another origin, which lets any origin read its answers but exposes none of their headers.
  upstream = createServer((_request, response) => {
    response.writeHead(200, {
      'access-control-allow-origin': '*',
      'x-debug-token-link': 'http://elsewhere.example/_profiler/abc123',
      'content-type': 'text/plain',
    });
    response.end('from elsewhere');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  const config = loadConfig({
    TLS: '0',
    LOG_LEVEL: 'silent',
    VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-toolbar-')),
  });
  app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get('/shop', async (_request, reply) => {
    for (let id = 1; id <= 3; id++) await pool.query('SELECT $1::int AS id', [id]);
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PAGE_POLICY)
      .send(page(SHOP_SCRIPT));
  });
  app.get('/elsewhere', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(
      page(`fetch(${JSON.stringify(`${upstreamUrl}/fetched`)}).then((answer) => show('fetch ' + answer.status));
const xhr = new XMLHttpRequest();
xhr.open('GET', ${JSON.stringify(`${upstreamUrl}/xhr`)});
xhr.onload = () => show('xhr ' + xhr.status);
xhr.send();
fetch('http://[').catch((error) => show('rejected ' + error.name));`),
    ),
  );
  app.get('/api/products', async () => [{ id: 1, name: 'lamp' }]);
  app.get('/api/broken', async () => {
    throw new TypeError('the shop is broken');
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await app?.close();
  upstream?.close();
  upstream?.closeAllConnections();
  await pool?.end();
  await postgres?.close();
  stopInstrumenting();
  await provider.shutdown();
});

interface Tab {
  context: BrowserContext;
  page: Page;
  /** Console errors, but for the loads answered 404 and 500 on purpose. */
  complaints: string[];
  /** Every path the browser asked this service for. */
  asked: string[];
}

async function tab(colorScheme: 'light' | 'dark' = 'light'): Promise<Tab> {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1100, height: 560 } });
  const page = await context.newPage();
  const complaints: string[] = [];
  const asked: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of (404|500)/.test(message.text())) complaints.push(message.text());
  });
  context.on('request', (request) => {
    if (request.url().startsWith(url)) asked.push(new URL(request.url()).pathname);
  });
  return { context, page, complaints, asked };
}

/** Opens the shop and waits until the bar lists the page's four calls, answered. */
async function openShop(page: Page): Promise<void> {
  await page.goto(`${url}/shop`);
  await page.waitForFunction(() => document.querySelectorAll('#out li').length === 4);
  await page.waitForFunction(() => document.querySelector('.vt-requests .vt-tab')?.textContent === '4 requests 500');
}

const bar = (page: Page) => page.getByRole('region', { name: 'vigil debug toolbar' });

describe("the toolbar lists the page's fetch and XHR calls live", () => {
  it('shows each call with its status and a link that opens its report, the page getting its answers whole', async () => {
    const { context, page, complaints } = await tab();
    try {
      await openShop(page);
      const seen = await page.locator('#out li').allTextContents();
      assert.deepEqual(
        [...seen].sort(),
        ['/api/broken 500 true', '/api/product/3 404 true', '/api/products 200 true', 'xhr 200 true'],
        'the page read every body and status as the server sent them',
      );
      const requests = bar(page).getByTitle('Requests of the page');
      assert.equal(await requests.getAttribute('class'), 'vt-tab vt-error', 'the badge takes the worst status');
      await requests.click();
      const rows = page.locator('#vt-panel-requests tbody tr');
      assert.ok(await rows.first().isVisible(), 'a click opens the panel');
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)),
      );
      assert.deepEqual(cells, [
        ['GET', '/api/products?via=xhr', '200'],
        ['GET', '/api/broken', '500'],
        ['GET', '/api/product/3', '404'],
        ['GET', '/api/products', '200'],
      ]);
      await page.screenshot({ path: screenshotPath('toolbar-requests-light.png') });
      const links = await rows.locator('a').evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
      assert.equal(links.length, 4, 'each call links its report');
      const titles: string[] = [];
      for (const link of links.slice(1)) {
        await page.goto(link);
        titles.push(await page.title());
      }
      assert.deepEqual(titles, [
        `GET ${url}/api/broken (500) - vigil profiler`,
        `GET ${url}/api/product/3 (404) - vigil profiler`,
        `GET ${url}/api/products (200) - vigil profiler`,
      ]);
      assert.deepEqual(complaints, [], 'the CSP blocked nothing, and nothing failed');
    } finally {
      await context.close();
    }
  });

  it('adds one global, window.__vigil, to the page', async () => {
    const { context, page } = await tab();
    try {
      await page.goto(`${url}/api/products`); // a page of the same origin without the bar
      const blank = await page.evaluate(() => Object.getOwnPropertyNames(window));
      await openShop(page);
      const added = await page.evaluate((before) => {
        const known = new Set(before);
        return Object.getOwnPropertyNames(window).filter((name) => !known.has(name));
      }, blank);
      assert.deepEqual(added, ['__vigil']);
    } finally {
      await context.close();
    }
  });

  it("shows no link for another origin's answer that does not expose it, and a call that failed as failed", async () => {
    const { context, page, complaints } = await tab();
    try {
      await page.goto(`${url}/elsewhere`);
      await page.waitForFunction(() => document.querySelectorAll('#out li').length === 3);
      assert.deepEqual([...(await page.locator('#out li').allTextContents())].sort(), [
        'fetch 200',
        'rejected TypeError',
        'xhr 200',
      ]);
      const requests = bar(page).getByTitle('Requests of the page');
      await page.waitForFunction(
        () => document.querySelector('.vt-requests .vt-tab')?.textContent === '3 requests failed',
      );
      await requests.click();
      const rows = page.locator('#vt-panel-requests tbody tr');
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      );
      const byStatus = cells.map((cell) => `${cell[0]} ${cell[2]} ${cell[4]}`).sort();
      assert.deepEqual(byStatus, ['GET 200 ', 'GET 200 ', 'GET failed ']);
      assert.equal(await rows.locator('a').count(), 0);
      assert.deepEqual(complaints, [], 'no header was asked for that the browser refuses to give');
    } finally {
      await context.close();
    }
  });
});

describe('each item opens a panel with its detail and the link to its panel of the report', () => {
  it('the queries item links to the Database panel', async () => {
    const { context, page } = await tab();
    try {
      await openShop(page);
      const queries = bar(page).getByTitle('Database queries');
      assert.match((await queries.textContent()) ?? '', /^3 queries in /);
      await queries.hover();
      const panel = page.getByRole('group', { name: 'Database queries' });
      assert.ok(await panel.isVisible(), 'a hover opens it');
      assert.equal(
        await panel.locator('tr', { hasText: 'Ran 3 times' }).locator('td').textContent(),
        'SELECT $1::int AS id',
      );
      await page.screenshot({ path: screenshotPath('toolbar-queries-light.png') });
      await panel.getByRole('link', { name: 'Database panel of the report' }).click();
      await page.waitForURL(/\/_profiler\/[0-9a-f]+\?panel=database$/);
      assert.equal(await page.locator('#statements tbody tr').count(), 3);
    } finally {
      await context.close();
    }
  });

  it('the memory item shows the heap, as the report does, not the resident set', async () => {
    const { context, page } = await tab();
    try {
      await openShop(page);
      const memory = bar(page).getByTitle('Memory: V8 heap used');
      await memory.click();
      const panel = page.getByRole('group', { name: 'Memory: V8 heap used' });
      assert.equal(
        await panel.locator('tr', { hasText: 'Heap used' }).locator('td').textContent(),
        await memory.textContent(),
      );
      assert.equal(
        await panel.getByRole('link').getAttribute('href'),
        `${await bar(page).locator('.vt-report').getAttribute('href')}?panel=memory`,
      );
    } finally {
      await context.close();
    }
  });
});

describe('a panel stays within the window', () => {
  it('opens leftwards from an item near the right edge of a narrow window', async () => {
    const { context, page } = await tab();
    try {
      await page.setViewportSize({ width: 640, height: 560 });
      await openShop(page);
      const queries = bar(page).getByTitle('Database queries');
      const item = (await queries.boundingBox())!;
      await queries.hover();
      const panel = (await page.getByRole('group', { name: 'Database queries' }).boundingBox())!;
      assert.ok(item.x + panel.width > 640, 'opened rightwards, it would run past the edge');
      assert.ok(panel.x >= 0 && panel.x + panel.width <= 640, JSON.stringify(panel));
    } finally {
      await context.close();
    }
  });
});

describe('minimised, the bar stays so across pages', () => {
  it('keeps the choice over a reload until it is shown again', async () => {
    const { context, page } = await tab();
    try {
      await openShop(page);
      await bar(page).getByRole('button', { name: 'Minimise the toolbar' }).click();
      const restore = bar(page).getByRole('button', { name: 'Show the vigil toolbar' });
      assert.ok(await restore.isVisible());
      assert.equal(await bar(page).getByTitle('Status').isVisible(), false);
      await page.screenshot({ path: screenshotPath('toolbar-minimised-light.png') });
      await page.reload();
      assert.ok(await restore.isVisible(), 'still minimised after a reload');
      assert.equal(await bar(page).getByTitle('Status').isVisible(), false);
      await restore.click();
      await page.reload();
      assert.ok(await bar(page).getByTitle('Status').isVisible(), 'shown again, and kept so');
    } finally {
      await context.close();
    }
  });
});

describe('in a dark colour scheme', () => {
  it('draws its panels dark; screenshots open and minimised', async () => {
    const { context, page, complaints } = await tab('dark');
    try {
      await openShop(page);
      await bar(page).getByTitle('Requests of the page').click();
      const panel = page.getByRole('group', { name: 'Requests of the page' });
      assert.equal(await panel.evaluate((element) => getComputedStyle(element).backgroundColor), 'rgb(36, 39, 46)');
      await page.screenshot({ path: screenshotPath('toolbar-requests-dark.png') });
      await bar(page).getByRole('button', { name: 'Minimise the toolbar' }).click();
      await page.screenshot({ path: screenshotPath('toolbar-minimised-dark.png') });
      assert.deepEqual(complaints, []);
    } finally {
      await context.close();
    }
  });
});

describe("the profiler's pages declare their own icon", () => {
  it('so that the browser never asks for /favicon.ico', async () => {
    const { context, page, asked } = await tab();
    try {
      await openShop(page);
      await page.goto(`${await bar(page).locator('.vt-report').getAttribute('href')}`);
      await page.goto(`${url}/_profiler`);
      assert.ok(!asked.includes('/favicon.ico'), asked.join(' '));
      assert.ok(await page.locator('link[rel="icon"]').count(), 'the page names an icon');
    } finally {
      await context.close();
    }
  });
});
