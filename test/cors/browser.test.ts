/** CONTRACT section 6 in a real browser: Chromium calls the service from a page on another origin. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { startInProcess } from '../support/in-process-service.js';
import type { Service } from '../support/service.js';

let service: Service;
let pages: Server;
let browser: Browser;

// The page posts JSON (a content-type that needs a preflight) and shows what it read.
const page = (serviceUrl: string) => `<!DOCTYPE html><html><body><pre id="out">pending</pre><script>
fetch(${JSON.stringify(`${serviceUrl}/items`)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x' }) })
  .then(async (response) => { document.getElementById('out').textContent = 'read ' + response.status + ' ' + (await response.text()); })
  .catch((error) => { document.getElementById('out').textContent = 'refused ' + error.name; });
</script></body></html>`;

before(async () => {
  service = await startInProcess({ ROUTES: 'examples/demo-routes.ts' });
  pages = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end(page(service.url)),
  );
  await new Promise<void>((resolve) => pages.listen(0, '0.0.0.0', resolve));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  pages?.close();
  await service?.stop();
});

async function outcomeFrom(pageUrl: string): Promise<string> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const tab = await context.newPage();
    await tab.goto(pageUrl);
    await tab.waitForFunction(() => document.getElementById('out')?.textContent !== 'pending', undefined, {
      timeout: 10_000,
    });
    return (await tab.textContent('#out')) ?? '';
  } finally {
    await context.close();
  }
}

describe('a browser page on an allowed origin calls the service', () => {
  it('sends the preflighted JSON POST from http://localhost:<port> and reads the answer', async () => {
    const { port } = pages.address() as AddressInfo;
    assert.equal(await outcomeFrom(`http://localhost:${port}/`), 'read 200 {"created":true}');
  });
});

describe('a browser page on another origin is refused', () => {
  it('cannot read the service from http://127.0.0.2:<port>', async () => {
    const { port } = pages.address() as AddressInfo;
    assert.equal(await outcomeFrom(`http://127.0.0.2:${port}/`), 'refused TypeError');
  });
});
