/**
 * Issue 44, item 5, over real sockets and in Chromium: the database panel shows each
 * statement formatted (keywords marked, a line per main clause), wrapped only between
 * words and copied as sent; pg's row counts reach the report; the waterfall names a
 * statement by its text; an outgoing call keeps its headers (secrets redacted), the start
 * of its response body and the bytes it received, without taking the body from the
 * application.
 */
// First: the tracing set-up is in place before pg is loaded, as docs/profiler.md says.
import { provider, stopInstrumenting } from '../support/tracing.js';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer, get as httpGet, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import type { Report } from '../../src/profiler/model/report.js';
import { escapeHtml } from '../../src/utils/html.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { startPostgres, type PostgresServer } from '../support/postgres.js';
import { runVigil } from '../support/command-line.js';
import { ask } from '../support/service.js';
import { tokenOf } from '../support/answers.js';

const pg = createRequire(import.meta.url)('pg') as typeof import('pg');

const PRODUCTS_QUERY = 'SELECT id, name, price FROM products WHERE price > $1 AND name <> $2 ORDER BY name LIMIT 10';
const PRODUCTS_KEPT = 'SELECT id, name, price FROM products WHERE price > $1 AND name <> $2 ORDER BY name LIMIT ?';
const DOWN_BODY = 'payment service down: the ledger is locked for maintenance';
/** Over the 4 KB kept of a body: the application still reads all of it. */
const LARGE_BODY = `${'a line of the upstream answer\n'.repeat(4000)}end`;

interface Call {
  method: string;
  url: string;
  status: number | null;
  responseSize: number | null;
  requestHeaders?: Record<string, string | string[]>;
  responseHeaders?: Record<string, string | string[]>;
  responseBody?: { kind: string; text?: string; size: number | null };
}

let postgres: PostgresServer;
let pool: Pool;
let upstream: Server;
let upstreamUrl: string;
let app: FastifyInstance;
let appUrl: string;
let varDir: string;

function routes(instance: FastifyInstance): void {
  instance.get('/products', async () => {
    const { rows } = await pool.query(PRODUCTS_QUERY, [5, 'none']);
    await pool.query('UPDATE products SET price = price WHERE price > $1', [0]);
    return { products: rows.length };
  });
  instance.get('/fetch', async (request) => {
    const { to } = request.query as { to: string };
    const answer = await fetch(`${upstreamUrl}${to}`, {
      headers: { authorization: 'Bearer call-secret-44', 'x-request-purpose': 'checkout' },
    });
    return { status: answer.status, body: await answer.text() };
  });
  instance.get('/fetch-many', async () => {
    for (let i = 0; i < 15; i++) await (await fetch(`${upstreamUrl}/large`)).text();
    return { status: (await fetch(`${upstreamUrl}/down`)).status };
  });
  instance.get('/http', async (request) => {
    const { to } = request.query as { to: string };
    return new Promise((resolve, reject) => {
      httpGet(
        `${upstreamUrl}${to}`,
        { headers: { 'x-api-key': 'key-secret-44', 'x-request-purpose': 'ledger' } },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode, body }));
        },
      ).on('error', reject);
    });
  });
}

before(async () => {
  postgres = await startPostgres();
  pool = new pg.Pool({ connectionString: await postgres.database('panels'), max: 2 });
  pool.on('error', () => undefined);
  await pool.query('CREATE TABLE products (id int PRIMARY KEY, name text NOT NULL, price int NOT NULL)');
  await pool.query("INSERT INTO products VALUES (1, 'lamp', 30), (2, 'chair', 80), (3, 'pen', 2), (4, 'desk', 200)");
  upstream = createHttpServer((request, response) => {
    if (request.url === '/down') {
      // Chunked: no Content-Length says what was received.
      response.writeHead(503, {
        'content-type': 'text/plain; charset=utf-8',
        'x-upstream': 'ledger-7',
        'set-cookie': 'sid=upstream-secret-44',
      });
      response.write(DOWN_BODY.slice(0, 20));
      response.end(DOWN_BODY.slice(20));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(LARGE_BODY);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  varDir = mkdtempSync(join(tmpdir(), 'vigil-panels-'));
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: varDir });
  app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  routes(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  appUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
after(async () => {
  await app?.close();
  await pool?.end();
  await postgres?.close();
  upstream?.closeAllConnections();
  upstream?.close();
  stopInstrumenting();
  await provider.shutdown();
});

const service = () => ({ url: appUrl, ca: undefined });

async function reportOf(path: string): Promise<{ body: string; report: Report }> {
  const answer = await ask(service(), { path });
  assert.equal(answer.status, 200, answer.body);
  const profiler = app.vigil.profiler!;
  await profiler.writer.flush();
  const report = await profiler.store.read(tokenOf(answer));
  assert.ok(report);
  return { body: answer.body, report };
}

const panel = async (token: string, name: string) =>
  (await ask(service(), { path: `/_profiler/${token}?panel=${name}` })).body;
const calls = (report: Report) => (report.collectors.httpClient as { calls: Call[] }).calls;

describe('the database panel is deep enough to fix the bug', () => {
  it("keeps pg's row counts: rows returned, rows updated", async () => {
    const { report } = await reportOf('/products');
    const section = report.collectors.database as { statements: Array<{ rows: number | null }> };
    assert.deepEqual(
      section.statements.map((statement) => statement.rows),
      [3, 4],
    );
    assert.match(await panel(report.token, 'database'), /<td>3<\/td>/);
    const shown = await runVigil(['profiler:show', report.token], { VAR_DIR: varDir });
    assert.match(shown.stdout, /ms, 3 rows SELECT id, name, price FROM products/);
    assert.match(shown.stdout, /ms, 4 rows UPDATE products/);
  });

  it('names a statement on the waterfall by its text, not by its span', async () => {
    const { report } = await reportOf('/products');
    const spans = (report.collectors.performance as { spans: Array<{ name: string }> }).spans;
    assert.ok(
      spans.some((span) => span.name === PRODUCTS_KEPT),
      JSON.stringify(spans.map((span) => span.name)),
    );
    const page = await panel(report.token, 'performance');
    assert.ok(page.includes(`data-name="${escapeHtml(PRODUCTS_KEPT)}"`), 'the waterfall row is the statement');
    assert.doesNotMatch(page, /pg\.query:SELECT/);
  });

  it('marks the keywords and starts each main clause on a line of its own', async () => {
    const { report } = await reportOf('/products');
    const page = await panel(report.token, 'database');
    for (const clause of ['FROM', 'WHERE', 'ORDER BY', 'LIMIT'])
      assert.match(page, new RegExp(`<b class="kw clause">${clause}</b>`), clause);
    assert.match(page, /<b class="kw">SELECT<\/b>/);
    assert.match(page, /<b class="kw">AND<\/b>/);
  });

  it('wraps only between words, and copies the statement as it was sent (Chromium)', async (t) => {
    const { report } = await reportOf('/products');
    const browser = await launchChromium();
    try {
      // Narrow: every statement must wrap.
      const page = await browser.newPage({ viewport: { width: 520, height: 900 } });
      await page.goto(`${appUrl}/_profiler/${report.token}?panel=database`);
      const statement = page.locator('#statements pre').first();
      const seen = await statement.evaluate((pre) => {
        const broken: string[] = [];
        let lines = new Set<number>();
        const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode())
          for (const word of node.textContent!.matchAll(/[^\s(),]+/g)) {
            const range = document.createRange();
            range.setStart(node, word.index);
            range.setEnd(node, word.index + word[0].length);
            const rects = [...range.getClientRects()].filter((rect) => rect.width > 0);
            if (rects.length !== 1) broken.push(word[0]);
            else lines.add(Math.round(rects[0]!.top));
          }
        const selection = getSelection()!;
        selection.selectAllChildren(pre);
        const copied = selection.toString();
        selection.removeAllRanges();
        lines = new Set([...lines]);
        return { broken, copied, lines: lines.size };
      });
      assert.deepEqual(seen.broken, [], 'no word is broken across lines');
      assert.equal(seen.copied, PRODUCTS_KEPT, 'what is selected is the statement itself');
      // And what the clipboard gets from Ctrl+C.
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: appUrl });
      await statement.evaluate((pre) => getSelection()!.selectAllChildren(pre));
      await page.keyboard.press('Control+C');
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), PRODUCTS_KEPT);
      await page.evaluate(() => getSelection()!.removeAllRanges());
      assert.ok(seen.lines >= 4, `a line per main clause at least: ${seen.lines}`);
      await page.screenshot({ path: screenshotPath('profiler-database-formatted.png'), fullPage: true });
      t.diagnostic(`screenshot: ${screenshotPath('profiler-database-formatted.png')}`);
      // The waterfall's rows named by statements keep the bars in view.
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${appUrl}/_profiler/${report.token}?panel=performance`);
      const timeline = (await page.locator('#timeline').boundingBox())!;
      const card = (await page.locator('#panel-performance').boundingBox())!;
      assert.ok(
        timeline.x + timeline.width <= card.x + card.width,
        `the waterfall stays in its card: ${JSON.stringify({ timeline, card })}`,
      );
      await page.screenshot({ path: screenshotPath('profiler-waterfall-statements.png'), fullPage: true });
      // A call answered 503: its headers and body open on the HTTP client panel, light and dark.
      const down = await reportOf('/fetch?to=/down');
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${appUrl}/_profiler/${down.report.token}?panel=httpClient`);
        assert.equal(await page.locator('#call-1 .response-body').textContent(), DOWN_BODY);
        assert.ok(await page.locator('#call-1 .response-body').isVisible(), 'a failed call is shown open');
        await page.screenshot({ path: screenshotPath(`profiler-http-client-exchange-${scheme}.png`), fullPage: true });
      }
    } finally {
      await browser.close();
    }
  });
});

describe('the HTTP client panel keeps what the call sent and what it received', () => {
  for (const client of ['fetch', 'http'] as const)
    it(`keeps a ${client} call's headers, secrets redacted, and the upstream's 503 body`, async () => {
      const { body, report } = await reportOf(`/${client}?to=/down`);
      // The application read the whole body itself.
      assert.deepEqual(JSON.parse(body), { status: 503, body: DOWN_BODY });
      const [call] = calls(report);
      assert.equal(call!.status, 503);
      assert.equal(call!.requestHeaders?.['x-request-purpose'], client === 'fetch' ? 'checkout' : 'ledger');
      assert.equal(call!.requestHeaders?.[client === 'fetch' ? 'authorization' : 'x-api-key'], '[redacted]');
      assert.equal(call!.responseHeaders?.['x-upstream'], 'ledger-7');
      assert.equal(String(call!.responseHeaders?.['set-cookie']), '[redacted]');
      assert.equal(call!.responseBody?.text, DOWN_BODY);
      // Chunked: the bytes received are counted.
      assert.equal(call!.responseSize, Buffer.byteLength(DOWN_BODY));
      const page = await panel(report.token, 'httpClient');
      assert.ok(page.includes(DOWN_BODY), 'the body is on the panel');
      assert.ok(page.includes('ledger-7'), 'the response headers are on the panel');
      assert.doesNotMatch(JSON.stringify(report) + page, /secret-44/);
      if (client === 'fetch') {
        const shown = await runVigil(['profiler:show', report.token], { VAR_DIR: varDir });
        assert.ok(shown.stdout.includes(`    body: ${DOWN_BODY}`), shown.stdout);
      }
    });

  for (const client of ['fetch', 'http'] as const)
    it(`keeps the first 4 KB of a long ${client} body, and the application still reads it all`, async () => {
      const { body, report } = await reportOf(`/${client}?to=/large`);
      assert.equal((JSON.parse(body) as { body: string }).body, LARGE_BODY);
      const [call] = calls(report);
      assert.equal(call!.responseSize, Buffer.byteLength(LARGE_BODY));
      const text = call!.responseBody?.text ?? '';
      assert.ok(text.startsWith(LARGE_BODY.slice(0, 4000)), text.slice(0, 80));
      assert.ok(text.length < 4200, `bounded: ${text.length}`);
      assert.match(text, /…\[cut [\d,]+ bytes\]$/);
    });

  it("keeps the headers and body of 8 calls at most, those answered with an error first, within the report's bound", async () => {
    const { report } = await reportOf('/fetch-many');
    const section = report.collectors.httpClient as { calls: Call[]; detailsOmitted?: number; collectorError?: string };
    assert.equal(section.collectorError, undefined);
    assert.equal(section.calls[0]!.responseBody?.text?.length, 4096 + '…[cut 116,003 bytes]'.length, 'kept whole');
    assert.equal(section.calls.length, 16);
    const down = section.calls[15]!;
    assert.equal(down.responseBody?.text, DOWN_BODY);
    assert.equal(down.responseHeaders?.['x-upstream'], 'ledger-7');
    assert.deepEqual(
      section.calls.map((call) => call.responseBody !== undefined),
      [...Array<boolean>(7).fill(true), ...Array<boolean>(8).fill(false), true],
    );
    assert.equal(section.detailsOmitted, 8);
    // Every call still has its status and size.
    for (const call of section.calls.slice(0, 15)) assert.equal(call.responseSize, Buffer.byteLength(LARGE_BODY));
    assert.match(await panel(report.token, 'httpClient'), /The headers and body of 8 more calls were not kept/);
  });
});
