/**
 * Issue 15, item 4 over real sockets: a collector, its panel and its command-line text are
 * one unit. The demo's collector brings a title, a menu badge with a status colour and its
 * own renderer; `vigil profiler:show` prints its text. The demo's /demo/ routes each show
 * one thing a report now holds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runVigil, type Run } from '../support/command-line.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Answer, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'examples/demo-routes.ts', LOG_LEVEL: 'info' }));

const tokenOf = (answer: Answer) => String(answer.headers['x-debug-token']);
const json = async (token: string) =>
  JSON.parse((await ask(service(), { path: `/_profiler/${token}`, headers: { accept: 'application/json' } })).body) as {
    collectors: Record<string, any>;
  };
const CLIENT_ENTRY =
  /<a href="\/_profiler\/[0-9a-f]{6}\?panel=client"[^>]*><span>Client<\/span><span class="count">(.*?)<\/span><\/a>/;

describe("the demo's collector is one unit: its panel has a title, a badge and its own renderer", () => {
  it('shows the badge, coloured by its status, in the menu of every report', async () => {
    const withAgent = await ask(service(), {
      path: '/hello',
      headers: { 'user-agent': 'demo/1', 'accept-language': 'fr, en;q=0.5' },
    });
    const page = (await ask(service(), { path: `/_profiler/${tokenOf(withAgent)}` })).body;
    assert.equal(CLIENT_ENTRY.exec(page)?.[1], '<span class="pill ok">2</span>');
    const missing = await ask(service(), { path: '/nowhere' });
    const other = (await ask(service(), { path: `/_profiler/${tokenOf(missing)}` })).body;
    assert.equal(CLIENT_ENTRY.exec(other)?.[1], '<span class="pill warn">0</span>');
  });

  it('renders the panel under the same title as the menu, its records as a table with rounded numbers', async () => {
    const answer = await ask(service(), {
      path: '/hello',
      headers: { 'user-agent': 'demo/1', 'accept-language': 'de;q=0.333333333, fr' },
    });
    const page = (await ask(service(), { path: `/_profiler/${tokenOf(answer)}?panel=client` })).body;
    assert.match(page, /data-panel="client"><h2>Client<\/h2><table class="kv">/);
    assert.match(
      page,
      /<h3>Accepted languages<\/h3><table class="records"><thead><tr><th>tag<\/th><th>quality<\/th><\/tr><\/thead><tbody><tr><td><code>fr<\/code><\/td><td><code>1<\/code><\/td><\/tr><tr><td><code>de<\/code><\/td><td><code>0\.333<\/code><\/td><\/tr>/,
    );
  });

  it('prints its own text in vigil profiler:show', async () => {
    const answer = await ask(service(), {
      path: '/hello',
      headers: { 'user-agent': 'demo/1', 'accept-language': 'fr, en;q=0.5' },
    });
    // The search writes what is queued, so that the command line finds it in the store.
    await ask(service(), { path: `/_profiler/search?token=${tokenOf(answer)}` });
    const { code, stdout } = await vigil(['profiler:show', tokenOf(answer)], { ROUTES: 'examples/demo-routes.ts' });
    assert.equal(code, 0);
    assert.match(stdout, /\nClient\n  user agent demo\/1\n  languages fr \(q=1\), en \(q=0\.5\)\n/);
  });
});

describe('the demo routes show what a report holds', () => {
  it('/demo/console: console and app-logger lines, each with its logger', async () => {
    const report = await json(tokenOf(await ask(service(), { path: '/demo/console' })));
    assert.deepEqual(
      report.collectors.logs.lines.map((line: { logger: string }) => line.logger),
      ['console.log', 'request', 'app', 'console.error'],
    );
  });

  it('/demo/form: the fields, the cookies and the file, redacted', async () => {
    const boundary = 'demo-boundary';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAnn\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\nhunter2\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
    const answer = await ask(service(), {
      method: 'POST',
      path: '/demo/form',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        cookie: 'theme=dark; session_id=demo-secret',
      },
      body,
    });
    const { request } = (await json(tokenOf(answer))).collectors;
    assert.deepEqual(request.body, { type: 'multipart', value: { name: 'Ann', password: '[redacted]' } });
    assert.deepEqual(request.cookies, [
      { name: 'theme', value: 'dark' },
      { name: 'session_id', value: '[redacted]' },
    ]);
    assert.deepEqual(request.files, [{ field: 'attachment', filename: 'notes.txt', type: 'text/plain', size: 5 }]);
  });

  it('/demo/spans: nested spans', async () => {
    const report = await json(tokenOf(await ask(service(), { path: '/demo/spans' })));
    assert.deepEqual(
      report.collectors.performance.spans.map((span: { name: string; depth: number }) => `${span.depth}:${span.name}`),
      ['0:load user', '0:render page', '1:query orders', '1:template', '0:cache write'],
    );
  });
});

function vigil(args: string[], env: Record<string, string>): Promise<Run> {
  return runVigil(args, { VAR_DIR: service().varDir, ...env });
}
