/**
 * Issue 44, the list and the exceptions: the list's columns and filters (route, exception,
 * minimum duration) in JSON, on the page and in `profiler:list`; a browser's own requests
 * hidden by default and skipped by "latest"; exceptions grouped by fingerprint on
 * /_profiler/exceptions and in `profiler:exceptions`. Against the real service.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { tokenOf } from '../support/answers.js';
import { runVigil } from '../support/command-line.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service, serviceForTests } from '../support/service.js';

const service = serviceForTests(async () => {
  const started = await startInProcess({ ROUTES: 'test/fixtures/shop-routes.ts' });
  await seed(started);
  return started;
});
const JSON_ACCEPT = { accept: 'application/json' };

async function json<T>(path: string): Promise<T> {
  const answer = await ask(service(), { path, headers: JSON_ACCEPT });
  assert.equal(answer.status, 200, answer.body);
  return JSON.parse(answer.body) as T;
}

interface Listed {
  token: string;
  url: string;
  route: string | null;
  exception: string | null;
  fingerprint: string | null;
  statements: number | null;
  calls: number | null;
  duration: number;
}
interface Group {
  fingerprint: string;
  class: string;
  site: string;
  message: string;
  count: number;
  firstSeen: number;
  lastSeen: number;
  statuses: number[];
  routes: string[];
  newest: string;
  links: { newest: string; occurrences: string };
}

const failures: string[] = [];
let cart = '';
let favicon = '';
let slow = '';
/** Three TypeErrors differing by an id, a RangeError, a slow request and the browser's icon. */
async function seed(started: Service): Promise<void> {
  for (const id of [7, 19, 2023]) failures.push(tokenOf(await ask(started, { path: `/api/products/${id}` })));
  cart = tokenOf(await ask(started, { path: '/api/cart/abc' }));
  slow = tokenOf(await ask(started, { path: '/slow?ms=120' }));
  favicon = tokenOf(await ask(started, { path: '/favicon.ico' }));
}

describe('three TypeErrors differing only by an id make one group of 3', () => {
  it('groups them on /_profiler/exceptions in JSON, with their place, masked message, statuses and routes', async () => {
    const groups = await json<Group[]>('/_profiler/exceptions');
    assert.equal(groups.length, 2);
    const [range, type] = groups;
    assert.deepEqual([range!.class, range!.count, range!.message], ['RangeError', 1, 'cart "…" is empty']);
    assert.equal(type!.class, 'TypeError');
    assert.equal(type!.count, 3);
    assert.equal(type!.message, 'product {n} has no price (undefined)');
    assert.match(type!.site, /^test\/fixtures\/shop-routes\.ts:\d+$/, 'from the project root');
    assert.deepEqual(type!.statuses, [500]);
    assert.deepEqual(type!.routes, ['GET /api/products/{id}']);
    assert.ok(type!.firstSeen <= type!.lastSeen);
    assert.equal(type!.newest, failures[2]);
    assert.deepEqual(type!.links, {
      newest: `/_profiler/${failures[2]}`,
      occurrences: `/_profiler/search?fingerprint=${type!.fingerprint}`,
    });
    const occurrences = await json<Listed[]>(type!.links.occurrences);
    assert.deepEqual(
      occurrences.map((found) => found.token),
      [...failures].reverse(),
    );
  });
  it('shows them on the HTML page, each group linking to its newest report and its occurrences', async () => {
    const page = await ask(service(), { path: '/_profiler/exceptions' });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=UTF-8');
    const [, type] = await json<Group[]>('/_profiler/exceptions');
    assert.match(page.body, new RegExp(`<tr id="group-${type!.fingerprint}"`));
    assert.match(page.body, /product \{n\} has no price \(undefined\)/);
    assert.ok(page.body.includes(`href="/_profiler/search?fingerprint=${type!.fingerprint}"`));
    assert.ok(page.body.includes(`href="/_profiler/${failures[2]}"`));
    assert.doesNotMatch(page.body, /<script/);
  });
  it('links each row of the list with an exception to its group', async () => {
    const page = await ask(service(), { path: '/_profiler' });
    const [, type] = await json<Group[]>('/_profiler/exceptions');
    const row = new RegExp(
      `<tr class="listed" data-token="${failures[0]}">[\\s\\S]*?href="/_profiler/exceptions#group-${type!.fingerprint}">TypeError</a>`,
    );
    assert.match(page.body, row);
  });
});

describe('the list has the route, the exception, the statements and calls, and filters by them', () => {
  it('lists the facts in JSON', async () => {
    const [found] = await json<Listed[]>(`/_profiler/search?token=${failures[0]}`);
    assert.equal(found!.route, '/api/products/{id}');
    assert.equal(found!.exception, 'TypeError');
    assert.equal(found!.statements, 0);
    assert.equal(found!.calls, 0);
  });
  it('filters by exception class, route and minimum duration in JSON', async () => {
    const tokens = async (query: string) =>
      (await json<Listed[]>(`/_profiler/search?${query}`)).map((found) => found.token);
    assert.deepEqual(await tokens('exception=TypeError'), [...failures].reverse());
    assert.deepEqual(await tokens('exception=RangeError'), [cart]);
    assert.deepEqual(await tokens(`route=${encodeURIComponent('GET /api/cart/{id}')}`), [cart]);
    assert.deepEqual(await tokens('route=/api/cart/{id}&method=POST'), []);
    assert.ok((await tokens('min_duration=100')).includes(slow));
    assert.ok(!(await tokens('min_duration=100')).includes(cart));
  });
  it('refuses a bad one with a 400 that says why', async () => {
    const answer = await ask(service(), { path: '/_profiler/search?min_duration=fast', headers: JSON_ACCEPT });
    assert.equal(answer.status, 400);
    assert.match(answer.body, /min_duration/);
  });
});

describe("a browser's own requests are hidden by default", () => {
  it('leaves favicon.ico out of the list and the search, and shows it with assets=show', async () => {
    const listed = async (path: string) => (await json<Listed[]>(path)).map((found) => found.token);
    assert.ok(!(await listed('/_profiler')).includes(favicon));
    assert.ok(!(await listed('/_profiler/search?url=favicon')).includes(favicon));
    assert.ok((await listed('/_profiler?assets=show')).includes(favicon));
    const page = await ask(service(), { path: '/_profiler' });
    assert.ok(!page.body.includes(`data-token="${favicon}"`));
    assert.match(
      page.body,
      /<a id="assets-switch" href="\/_profiler\?assets=show">Show the browser&#39;s own requests/,
    );
  });
  it('is skipped by /_profiler/latest', async () => {
    const icon = tokenOf(await ask(service(), { path: '/apple-touch-icon-precomposed.png' }));
    const [newest] = await json<Listed[]>('/_profiler?assets=show');
    assert.equal(newest!.token, icon, 'the newest report is the icon');
    const latest = await json<{ token: string; url: string }>('/_profiler/latest');
    assert.notEqual(latest.token, icon);
    assert.notEqual(latest.token, favicon);
    assert.doesNotMatch(latest.url, /favicon|apple-touch-icon/);
  });
});

describe('profiler:list and profiler:exceptions read the same', () => {
  const vigil = (args: string[]) => runVigil(args, { VAR_DIR: service().varDir });
  before(async () => {
    // What the service answered is in the store the command reads.
    await json('/_profiler');
  });
  it('filters by --exception, --route and --min-duration, and hides favicon.ico unless --assets', async () => {
    const tokens = async (args: string[]) => {
      const run = await vigil(['profiler:list', '--json', ...args]);
      assert.equal(run.code, 0, run.stderr);
      return (JSON.parse(run.stdout) as Listed[]).map((found) => found.token);
    };
    assert.deepEqual(await tokens(['--exception', 'TypeError']), [...failures].reverse());
    assert.deepEqual(await tokens(['--route', '/api/cart/{id}']), [cart]);
    assert.ok((await tokens(['--min-duration', '100'])).includes(slow));
    assert.ok(!(await tokens([])).includes(favicon));
    assert.ok((await tokens(['--assets'])).includes(favicon));
    const table = await vigil(['profiler:list', '--exception', 'RangeError']);
    assert.match(table.stdout, /\/api\/cart\/\{id\}\s+RangeError\s+0\s+0\s+https:/);
    const bad = await vigil(['profiler:list', '--min-duration', 'soon']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--min-duration must be a number of milliseconds/);
  });
  it('groups the exceptions in profiler:exceptions', async () => {
    const run = await vigil(['profiler:exceptions', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const groups = JSON.parse(run.stdout) as Array<Group & { exception: string }>;
    assert.deepEqual(
      groups.map((group) => [group.exception, group.count]),
      [
        ['RangeError', 1],
        ['TypeError', 3],
      ],
    );
    const text = await vigil(['profiler:exceptions']);
    assert.match(text.stdout, /^TypeError: product \{n\} has no price \(undefined\)$/m);
    assert.match(text.stdout, /count\s+3 \(first /);
    assert.match(text.stdout, new RegExp(`profiler:list --fingerprint ${groups[1]!.fingerprint}$`, 'm'));
  });
});
