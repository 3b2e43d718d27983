/** Issue 3: an application adds a report section in a few lines, with a `collectors` export beside its routes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, runMain, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'examples/demo-routes.ts' }));

describe("a routes module's collectors export adds a section and a panel to every report", () => {
  it('stores what the collector returns and shows it as its own panel', async () => {
    const answer = await ask(service(), {
      path: '/hello',
      headers: { 'user-agent': 'demo-agent/1.0', 'accept-language': 'fr, en;q=0.5' },
    });
    const token = String(answer.headers['x-debug-token']);
    const json = JSON.parse(
      (await ask(service(), { path: `/_profiler/${token}`, headers: { accept: 'application/json' } })).body,
    ) as { collectors: Record<string, unknown> };
    assert.deepEqual(json.collectors.client, { userAgent: 'demo-agent/1.0', languages: 'fr, en;q=0.5' });
    const page = await ask(service(), { path: `/_profiler/${token}?panel=client` });
    assert.match(page.body, /href="\/_profiler\/[0-9a-f]{6}\?panel=client"[^>]*><span>Client<\/span>/);
    assert.match(page.body, /<th>userAgent<\/th><td><code>demo-agent\/1\.0<\/code><\/td>/);
  });
});

describe('a collectors export that is not a list of collectors stops the start', () => {
  it('names ROUTES and says what is expected', async () => {
    const { code, stderr } = await runMain({ ROUTES: 'test/fixtures/bad-collectors.ts' });
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^vigil: cannot start: ROUTES: .*bad-collectors\.ts: the "collectors" export must be an array of collectors, each \{ name, collect\(context\) \}/,
    );
  });
});
