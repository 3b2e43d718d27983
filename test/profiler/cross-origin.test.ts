/** Issue 10, item 6 in a real browser: a page on an allowed origin reads the service, never the profiler. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service } from '../support/service.js';

let service: Service;
let pages: Server;
let browser: Browser;

// The page fetches `?path=` from the service (Accept needs no preflight) and shows what it read.
const page = (serviceUrl: string, path: string) => `<!DOCTYPE html><html><body><pre id="out">pending</pre><script>
fetch(${JSON.stringify(serviceUrl + path)}, { headers: { accept: 'application/json' } })
  .then(async (response) => { document.getElementById('out').textContent = 'read ' + response.status + ' ' + (await response.text()).slice(0, 40); })
  .catch((error) => { document.getElementById('out').textContent = 'refused ' + error.name; });
</script></body></html>`;

before(async () => {
  service = await startInProcess();
  pages = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').searchParams.get('path') ?? '/';
    response.writeHead(200, { 'content-type': 'text/html' }).end(page(service.url, path));
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  pages?.close();
  await service?.stop();
});

async function outcomeOf(path: string): Promise<string> {
  const { port } = pages.address() as AddressInfo;
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const tab = await context.newPage();
    await tab.goto(`http://localhost:${port}/?path=${encodeURIComponent(path)}`);
    await tab.waitForFunction(() => document.getElementById('out')?.textContent !== 'pending', undefined, {
      timeout: 10_000,
    });
    return (await tab.textContent('#out')) ?? '';
  } finally {
    await context.close();
  }
}

describe('a page on an allowed origin cannot read the profiler', () => {
  it('is refused the search, the list and a report', async () => {
    const token = String((await ask(service, { path: '/robots.txt' })).headers['x-debug-token']);
    for (const path of ['/_profiler/search?status_code=404', '/_profiler', `/_profiler/${token}`]) {
      assert.equal(await outcomeOf(path), 'refused TypeError', path);
    }
  });

  it('still reads the rest of the service', async () => {
    assert.match(await outcomeOf('/robots.txt'), /^read 404 /);
  });
});
