/** CONTRACT sections 3 and 4: every error response, in debug mode, byte for byte. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, ROOT, serviceForTests } from '../support/service.js';
import { debugMessage, exceptionFile, lineOf } from '../support/answers.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/failing-routes.ts' }));

describe('every error response carries the contract headers', () => {
  it('sends content-type, cache-control, vary, date and the x-debug-* headers, lower-case, and no cookie', async () => {
    const answer = await ask(service(), { path: '/robots.txt', headers: { cookie: 'a=b' } });
    assert.equal(answer.headers['content-type'], 'text/html; charset=UTF-8');
    assert.equal(answer.headers['cache-control'], 'no-cache, private');
    assert.equal(answer.headers.vary, 'Accept');
    assert.match(
      String(answer.headers.date),
      /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/,
    );
    assert.ok(Math.abs(Date.parse(String(answer.headers.date)) - Date.now()) < 60_000);
    const token = String(answer.headers['x-debug-token']);
    assert.match(token, /^[0-9a-f]{6}$/);
    assert.equal(answer.headers['x-debug-token-link'], `${service().url}/_profiler/${token}`);
    assert.equal(answer.headers['set-cookie'], undefined);
    for (const name of [
      'content-type',
      'cache-control',
      'vary',
      'date',
      'x-debug-exception',
      'x-debug-exception-file',
      'x-debug-token',
      'x-debug-token-link',
    ]) {
      assert.ok(
        answer.rawHeaderNames.includes(name),
        `${name} is sent lower-case (got ${answer.rawHeaderNames.join(', ')})`,
      );
    }
  });

  it('gives every request its own token', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 50 }, () => ask(service(), { path: '/robots.txt' }).then((a) => a.headers['x-debug-token'])),
    );
    assert.equal(new Set(tokens).size, 50);
  });
});

describe('x-debug-exception is the rawurlencoded message, cut at 2000 characters', () => {
  it('encodes every byte outside A-Z a-z 0-9 - _ . ~ in upper-case hex', async () => {
    const answer = await ask(service(), { path: "/it's(*)!~" });
    assert.equal(
      answer.headers['x-debug-exception'],
      `No%20route%20found%20for%20%22GET%20https%3A%2F%2Flocalhost%3A${service().port}%2Fit%27s%28%2A%29%21~%22`,
    );
  });

  it('cuts a message longer than 2000 characters', async () => {
    const path = `/${'a'.repeat(3000)}`;
    const answer = await ask(service(), { path });
    const full = `No route found for "GET ${service().url}${path}"`;
    assert.equal(debugMessage(answer), full.slice(0, 2000));
    assert.ok(answer.body.includes(full.replaceAll('"', '&quot;')), 'the page shows the whole message');
  });
});

describe('x-debug-exception-file is the .ts file and line where the error was raised', () => {
  it('names the routing source for a 404', async () => {
    const site = exceptionFile(await ask(service(), { path: '/robots.txt' }));
    const file = join(ROOT, 'src/routing/unmatched.ts');
    assert.equal(site.file, file);
    assert.equal(site.line, lineOf(file, 'new NotFoundHttpError('));
  });

  it("names the handler's own line when a handler throws", async () => {
    const answer = await ask(service(), { path: '/fail' });
    assert.equal(answer.status, 500);
    assert.equal(debugMessage(answer), 'database is down');
    const file = join(ROOT, 'test/fixtures/failing-routes.ts');
    assert.deepEqual(exceptionFile(answer), { file, line: lineOf(file, "throw new Error('database is down')") });
  });

  it('follows an error thrown after an await', async () => {
    const answer = await ask(service(), { path: '/fail-later' });
    const site = exceptionFile(answer);
    assert.ok(existsSync(site.file));
    assert.equal(site.line, lineOf(site.file, 'throw new TypeError('));
  });

  it("keeps an HttpError's own status and code", async () => {
    const answer = await ask(service(), { path: '/teapot', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 418);
    const problem = JSON.parse(answer.body);
    assert.equal(problem.title, "I'm a Teapot");
    assert.equal(problem.detail, 'no coffee here');
  });
});

describe('the error format follows Accept', () => {
  it('renders RFC 9457 JSON for application/json and application/problem+json', async () => {
    for (const accept of ['application/json', 'application/problem+json']) {
      const answer = await ask(service(), { path: '/robots.txt', headers: { accept } });
      assert.equal(answer.headers['content-type'], 'application/problem+json');
      assert.equal(answer.headers.vary, 'Accept');
      const problem = JSON.parse(answer.body);
      assert.equal(problem.type, 'about:blank');
      assert.equal(problem.title, 'Not Found');
      assert.equal(problem.status, 404);
      assert.equal(problem.detail, `No route found for "GET ${service().url}/robots.txt"`);
      assert.equal(problem.debugToken, answer.headers['x-debug-token']);
      assert.equal(problem.exception.class, 'NotFoundHttpError');
      assert.equal(problem.exception.message, problem.detail);
      assert.equal(problem.exception.file, join(ROOT, 'src/routing/unmatched.ts'));
      assert.equal(typeof problem.exception.line, 'number');
      assert.ok(Array.isArray(problem.exception.trace) && problem.exception.trace.length > 0);
    }
  });

  it('renders the XML form for application/xml, text/xml and application/problem+xml', async () => {
    for (const accept of ['application/xml', 'text/xml', 'application/problem+xml']) {
      const answer = await ask(service(), { path: '/robots.txt', headers: { accept } });
      assert.equal(answer.headers['content-type'], 'application/problem+xml');
      assert.ok(
        answer.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<problem xmlns="urn:ietf:rfc:7807">'),
        answer.body.slice(0, 80),
      );
      assert.ok(answer.body.includes('<type>about:blank</type><title>Not Found</title><status>404</status>'));
      assert.ok(
        answer.body.includes(`<detail>No route found for &quot;GET ${service().url}/robots.txt&quot;</detail>`),
      );
      assert.ok(answer.body.includes('<class>NotFoundHttpError</class>'));
      assert.ok(answer.body.trimEnd().endsWith('</problem>'));
    }
  });

  it('renders text for text/plain: status line, message, trace', async () => {
    const answer = await ask(service(), { path: '/robots.txt', headers: { accept: 'text/plain' } });
    assert.equal(answer.headers['content-type'], 'text/plain; charset=UTF-8');
    assert.ok(answer.body.startsWith(`404 Not Found\n\nNo route found for "GET ${service().url}/robots.txt"\n`));
    assert.match(answer.body, /at resolveUnmatched \(.*src\/routing\/unmatched\.ts:\d+\)/);
  });

  it('weighs q-values, then the order in the header', async () => {
    const cases: Array<[string, string]> = [
      ['text/html;q=0.5, application/json', 'application/problem+json'],
      ['application/json;q=0.4, text/plain;q=0.9', 'text/plain; charset=UTF-8'],
      ['application/xml, application/json', 'application/problem+xml'],
      ['image/png', 'text/html; charset=UTF-8'],
      ['*/*', 'text/html; charset=UTF-8'],
    ];
    for (const [accept, type] of cases) {
      assert.equal((await ask(service(), { path: '/x', headers: { accept } })).headers['content-type'], type, accept);
    }
  });

  it('shows the debug page: title, heading, message, request with query, class, trace with source, report link', async () => {
    const answer = await ask(service(), { path: '/robots.txt?page=2' });
    const token = String(answer.headers['x-debug-token']);
    assert.ok(answer.body.includes('<title>Error 404 Not Found</title>'));
    assert.ok(answer.body.includes('<h1>Error 404 Not Found</h1>'));
    assert.ok(answer.body.includes(`No route found for &quot;GET ${service().url}/robots.txt&quot;`));
    assert.ok(answer.body.includes(`GET ${service().url}/robots.txt?page=2`));
    assert.ok(answer.body.includes('NotFoundHttpError'));
    assert.ok(answer.body.includes('new NotFoundHttpError('), 'the source excerpt of the raising line');
    assert.ok(answer.body.includes(`href="${service().url}/_profiler/${token}"`));
    // Its own icon, empty and inline: the browser asks for no /favicon.ico.
    assert.ok(
      !/<(script|img)\b|<link\b(?! rel="icon" href="data:,")/i.test(answer.body),
      'self-contained, no external assets',
    );
    assert.ok(answer.body.includes('prefers-color-scheme:dark'));
    assert.ok(Buffer.byteLength(answer.body) < 20_000, `compact page: ${Buffer.byteLength(answer.body)} bytes`);
  });
});

describe('without VIGIL_IDE the frames are plain text', () => {
  it('links no file', async () => {
    const answer = await ask(service(), { path: '/fail' });
    const file = join(ROOT, 'test/fixtures/failing-routes.ts');
    assert.ok(
      answer.body.includes(`<span class="file">${file}:${lineOf(file, "throw new Error('database is down')")}</span>`),
      answer.body,
    );
    assert.ok(!answer.body.includes('<a class="file"'));
    assert.ok(!/href="(?!https:|data:,")/.test(answer.body), 'the only link is the report');
  });
});

describe('everything from the request is escaped for its format', () => {
  const path = '/<script>alert(1)</script>?q=<img/src=x/onerror=alert(2)>&x="\'';
  const referer = '"><script>alert(3)</script>';

  it('never puts raw markup from path, query or Referer into HTML', async () => {
    const answer = await ask(service(), { path, headers: { referer } });
    assert.equal(answer.status, 404);
    assert.ok(!answer.body.includes('<script>'), 'no raw <script>');
    assert.ok(!answer.body.includes('<img'), 'no raw <img');
    assert.ok(answer.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(answer.body.includes('&lt;img/src=x/onerror=alert(2)&gt;'));
    assert.ok(answer.body.includes('&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;'));
  });

  it('keeps JSON and XML well-formed and inert', async () => {
    const json = await ask(service(), { path, headers: { referer, accept: 'application/json' } });
    assert.ok(JSON.parse(json.body).detail.endsWith(`(from "${referer}")`));
    const xml = await ask(service(), { path, headers: { referer, accept: 'application/xml' } });
    assert.ok(!xml.body.includes('<script>') && xml.body.includes('&lt;script&gt;'));
  });

  it('escapes a thrown message with markup', async () => {
    const answer = await ask(service(), { path: '/fail-later' });
    assert.ok(answer.body.includes('late &lt;failure&gt; &amp; &quot;quotes&quot;'));
  });

  it('refuses a Host it could not print safely with a 400', async () => {
    const answer = await ask(service(), { path: '/robots.txt', headers: { host: 'evil"><script>' } });
    assert.equal(answer.status, 400);
    assert.ok(!answer.body.includes('<script>'));
  });
});
