/** Issue 3, web pages: /_profiler, /_profiler/search and /_profiler/<token>, against the real service. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Answer, serviceForTests } from '../support/service.js';
import { tokenOf } from '../support/answers.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/failing-routes.ts' }));

const JSON_ACCEPT = { accept: 'application/json' };
async function search(query: string): Promise<Array<Record<string, unknown>>> {
  const answer = await ask(service(), { path: `/_profiler/search?${query}`, headers: JSON_ACCEPT });
  assert.equal(answer.status, 200, answer.body);
  const results: unknown = JSON.parse(answer.body);
  assert.ok(Array.isArray(results), answer.body);
  return results as Array<Record<string, unknown>>;
}
const problem = (answer: Answer) => JSON.parse(answer.body) as { status: number; detail: string };

const PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The page headers; a live list's policy admits its one script by its nonce, and requests to the profiler. */
function assertPageHeaders(answer: Answer, live = false) {
  const nonce = /<script nonce="([^"]+)">/.exec(answer.body)?.[1];
  if (live) {
    assert.ok(nonce, 'the live list carries its script');
    assert.equal(
      answer.headers['content-security-policy'],
      `${PAGE_POLICY}; script-src 'nonce-${nonce}'; connect-src 'self'`,
    );
    assert.equal(answer.body.match(/<script/g)?.length, 1);
  } else {
    assert.equal(answer.headers['content-security-policy'], PAGE_POLICY);
    assert.equal(nonce, undefined);
  }
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  assert.equal(answer.headers['x-frame-options'], 'DENY');
  assert.equal(answer.headers['x-debug-token'], undefined, 'profiler pages carry no token');
}

describe('the debug error page links to its report', () => {
  it('sends x-debug-token-link and the same link in the page', async () => {
    const answer = await ask(service(), { path: '/robots.txt' });
    const link = `${service().url}/_profiler/${tokenOf(answer)}`;
    assert.equal(answer.headers['x-debug-token-link'], link);
    assert.ok(answer.body.includes(`href="${link}"`));
    const report = await ask(service(), { path: new URL(link).pathname });
    assert.equal(report.status, 200);
  });
});

describe('/_profiler lists the newest reports with a search form', () => {
  it('is an HTML page with the newest first, the form and the counters', async () => {
    const first = await ask(service(), { path: '/hello' });
    const second = await ask(service(), { path: '/nowhere' });
    const page = await ask(service(), { path: '/_profiler' });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=UTF-8');
    assertPageHeaders(page, true);
    const firstAt = page.body.indexOf(`data-token="${tokenOf(first)}"`);
    const secondAt = page.body.indexOf(`data-token="${tokenOf(second)}"`);
    assert.ok(secondAt !== -1 && firstAt > secondAt, 'newest first');
    assert.match(page.body, /<form class="search" method="get" action="\/_profiler\/search"/);
    for (const field of ['ip', 'method', 'status_code', 'url', 'token', 'start', 'end', 'limit'])
      assert.match(page.body, new RegExp(`name="${field}"`));
    assert.match(page.body, /<span class="" id="dropped"><b>0<\/b> dropped since start<\/span>/);
  });

  it('is not itself profiled', async () => {
    const page = await ask(service(), { path: '/_profiler' });
    assert.equal(page.headers['x-debug-token'], undefined);
    await ask(service(), { path: '/_profiler/search?url=x' });
    await ask(service(), { path: '/hello' }); // a report the search must list, so that an empty answer cannot pass
    const stored = await search('limit=1000');
    assert.ok(
      stored.some((report) => String(report.url).endsWith('/hello')),
      'the search sees stored reports',
    );
    assert.deepEqual(
      stored.filter((report) => String(report.url).includes('/_profiler')),
      [],
    );
  });

  it('answers 405 with Allow for another method, through the error pipeline', async () => {
    const answer = await ask(service(), { method: 'POST', path: '/_profiler' });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET');
    assertPageHeaders(answer);
  });
});

describe('/_profiler/search filters by Symfony’s fields and answers HTML or JSON', () => {
  it("finds a 404 by status and returns Symfony's fields, the duration and vigil's facts as JSON", async () => {
    const answer = await ask(service(), { path: '/search-me?x=1' });
    const results = await search(`status_code=404&url=${encodeURIComponent('/search-me?x=1')}`);
    assert.equal(results.length, 1);
    assert.deepEqual(Object.keys(results[0]!), [
      ...['token', 'method', 'url', 'status', 'time', 'ip', 'duration'],
      ...['route', 'exception', 'fingerprint', 'statements', 'calls'],
    ]);
    assert.equal(results[0]!.token, tokenOf(answer));
    assert.equal(results[0]!.url, `${service().url}/search-me?x=1`);
    assert.equal(results[0]!.status, 404);
    assert.equal(results[0]!.ip, '127.0.0.1');
    assert.ok(Math.abs(Number(results[0]!.time) - Date.now()) < 60_000);
  });

  it('filters by method, token, ip, time range and limit', async () => {
    const put = await ask(service(), { method: 'PUT', path: '/items/9' });
    const token = tokenOf(put);
    assert.deepEqual(
      (await search(`method=put&url=/items/9`)).map((r) => r.token),
      [token],
    );
    assert.deepEqual(
      (await search(`token=${token.slice(0, 4)}&method=PUT`)).map((r) => r.token),
      [token],
    );
    assert.ok((await search('ip=127.0.0')).length > 0);
    assert.equal((await search('ip=10.9.9')).length, 0);
    const time = Number((await search(`token=${token}`))[0]!.time);
    assert.deepEqual(
      (await search(`start=${time}&end=${time}&method=PUT`)).map((r) => r.token),
      [token],
    );
    assert.equal((await search(`end=${time - 1}&token=${token}`)).length, 0);
    assert.equal((await search(`start=${new Date(time).toISOString().slice(0, 10)}&token=${token}`)).length, 1);
    assert.equal((await search('limit=1')).length, 1);
  });

  it('shows results as an HTML table with the form filled in', async () => {
    const answer = await ask(service(), { path: '/filled' });
    const page = await ask(service(), { path: '/_profiler/search?status_code=404&url=%2Ffilled' });
    assertPageHeaders(page, true);
    assert.match(page.body, new RegExp(`href="/_profiler/${tokenOf(answer)}"`));
    assert.match(page.body, /name="status_code" value="404"/);
    assert.match(page.body, /name="url" value="\/filled"/);
  });

  it('rejects a bad filter with a 400 that names it', async () => {
    for (const [query, detail] of [
      ['status_code=abc', 'Search filter "status_code" must be a status code from 100 to 599; got "abc".'],
      ['limit=0', 'Search filter "limit" must be a whole number from 1 to 1000; got "0".'],
      ['token=xyz', 'Search filter "token" must be 1 to 6 hexadecimal characters; got "xyz".'],
      [
        'start=2026-02-30',
        'Search filter "start" must be epoch milliseconds or an ISO 8601 date such as 2026-01-02 or 2026-01-02T10:30; got "2026-02-30".',
      ],
      [
        'start=2026-01-03&end=2026-01-02',
        'Search filter "start" (2026-01-03) is after Search filter "end" (2026-01-02).',
      ],
      ['ip=<script>', 'Search filter "ip" must be an IP address or part of one; got "<script>".'],
      [
        'status=404',
        'Unknown search filter "status"; the filters are ip, method, status_code, url, token, start, end, limit, before, exception, fingerprint, route, min_duration, assets.',
      ],
      ['method=GET&method=POST', 'Search filter "method" is given more than once.'],
    ]) {
      const answer = await ask(service(), { path: `/_profiler/search?${query}`, headers: JSON_ACCEPT });
      assert.equal(answer.status, 400, query);
      assert.equal(answer.headers['content-type'], 'application/problem+json');
      assert.equal(problem(answer).detail, detail);
      assertPageHeaders(answer);
    }
    const html = await ask(service(), { path: '/_profiler/search?ip=%3Cscript%3E' });
    assert.equal(html.status, 400);
    assert.match(html.body, /<title>Error 400 Bad Request<\/title>/);
    assert.doesNotMatch(html.body, /<script>/);
  });
});

describe('/_profiler/<token> shows one report with a panel per collector', () => {
  it('opens the exception panel when there is an exception', async () => {
    const answer = await ask(service(), { path: '/fail' });
    const page = await ask(service(), { path: `/_profiler/${tokenOf(answer)}` });
    assert.equal(page.status, 200);
    assertPageHeaders(page);
    assert.match(page.body, /<section class="card" id="panel-exception" data-panel="exception"><h2>Error<\/h2>/);
    assert.match(page.body, /database is down/);
    for (const panel of ['request', 'response', 'exception', 'routing', 'performance', 'memory', 'logs']) {
      assert.match(page.body, new RegExp(`href="/_profiler/${tokenOf(answer)}\\?panel=${panel}"`));
    }
  });

  it('opens the request panel otherwise, and any panel on request', async () => {
    const answer = await ask(service(), { path: '/hello' });
    const page = await ask(service(), { path: `/_profiler/${tokenOf(answer)}` });
    assert.match(page.body, /id="panel-request" data-panel="request"><h2>Request<\/h2>/);
    const routing = await ask(service(), { path: `/_profiler/${tokenOf(answer)}?panel=routing` });
    assert.match(routing.body, /id="panel-routing"[^>]*><h2>Route matched<\/h2>/);
    const exception = await ask(service(), { path: `/_profiler/${tokenOf(answer)}?panel=exception` });
    assert.match(exception.body, /No exception was raised while handling this request\./);
  });

  it('answers the whole report as JSON when asked', async () => {
    const answer = await ask(service(), { path: '/teapot?tea=green' });
    const json = await ask(service(), { path: `/_profiler/${tokenOf(answer)}`, headers: JSON_ACCEPT });
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(json.headers.vary, 'Accept');
    const report = JSON.parse(json.body) as {
      token: string;
      status: number;
      url: string;
      collectors: Record<string, { class?: string }>;
    };
    assert.equal(report.token, tokenOf(answer));
    assert.equal(report.status, 418);
    assert.equal(report.url, `${service().url}/teapot?tea=green`);
    assert.equal(report.collectors.exception!.class, 'HttpError');
    assert.deepEqual(Object.keys(report.collectors), [
      'request',
      'response',
      'exception',
      'routing',
      'performance',
      'memory',
      'logs',
    ]);
  });

  it('is a 404 for an unknown token and a 400 for an unknown panel', async () => {
    const missing = await ask(service(), { path: '/_profiler/abcdef', headers: JSON_ACCEPT });
    assert.equal(missing.status, 404);
    assert.equal(problem(missing).detail, 'Token "abcdef" was not found in the database.');
    const answer = await ask(service(), { path: '/hello' });
    const badPanel = await ask(service(), { path: `/_profiler/${tokenOf(answer)}?panel=nope`, headers: JSON_ACCEPT });
    assert.equal(badPanel.status, 400);
    assert.equal(
      problem(badPanel).detail,
      'Unknown panel "nope"; this report has request, response, exception, routing, performance, memory, logs, database, httpClient.',
    );
  });

  it('escapes everything that came from the request', async () => {
    const answer = await ask(service(), {
      path: '/%3Cscript%3Ealert(1)%3C/script%3E?q=%3Cimg%20src=x%20onerror=alert(2)%3E',
      headers: { 'x-evil': '<script>alert(3)</script>', referer: '"><script>alert(4)</script>' },
    });
    for (const panel of ['request', 'exception', 'routing', 'response']) {
      const page = await ask(service(), { path: `/_profiler/${tokenOf(answer)}?panel=${panel}` });
      assert.doesNotMatch(page.body, /<script|<img/i, panel);
    }
    const request = await ask(service(), { path: `/_profiler/${tokenOf(answer)}?panel=request` });
    assert.match(request.body, /&lt;script&gt;alert\(3\)&lt;\/script&gt;/);
    assert.match(request.body, /&lt;img src=x onerror=alert\(2\)&gt;/);
    // A path sent without percent-encoding reaches the routing panel as it came.
    const rawPath = await ask(service(), { path: '/<script>alert(5)</script>' });
    const routing = await ask(service(), { path: `/_profiler/${tokenOf(rawPath)}?panel=routing` });
    assert.doesNotMatch(routing.body, /<script/i);
    assert.match(routing.body, /&lt;script&gt;alert\(5\)&lt;\/script&gt;/);
  });
});
