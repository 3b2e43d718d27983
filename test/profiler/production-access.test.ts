/**
 * Issue 45, item 3: in production the profiler answers only PROFILER_SECRET (a bearer, or a
 * session its login page opened); anyone else gets the ordinary 404, as if it were not
 * there. Failed attempts are logged and bounded per client address. The standalone service,
 * over real sockets, reading the reports a debug instance wrote to the same store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SecretCredentials } from '../../src/profiler/access/credentials.js';
import { ask, startService, type Answer, type Service } from '../support/service.js';

const SECRET = 'production profiler secret, 32 characters or more';
const credentials = new SecretCredentials(SECRET);
const LOGIN = `/_profiler/login?key=${credentials.loginKey}`;

let production: Service;
/** A report the debug instance left in the store. */
let token: string;
/** Each test asks from an address of its own (through the trusted proxy), so that one's failures do not bound another's. */
let nextClient = 1;
const newClient = () => `203.0.113.${nextClient++}`;

before(async () => {
  const varDir = mkdtempSync(join(tmpdir(), 'vigil-prod-access-'));
  const debug = await startService({ VAR_DIR: varDir });
  try {
    token = String((await ask(debug, { path: '/robots.txt?from=debug' })).headers['x-debug-token']);
  } finally {
    await debug.stop();
  }
  production = await startService({
    VAR_DIR: varDir,
    APP_ENV: 'prod',
    PROFILER_SECRET: SECRET,
    TRUSTED_PROXIES: '127.0.0.1,::1',
  });
});
after(() => production.stop());

function asClient(client: string, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) {
  return ask(production, { method, path, headers: { 'x-forwarded-for': client, ...headers }, body });
}

/** The answer is the ordinary 404 the same client gets for a path without a route: same body, same header names. */
async function assertOrdinary404(
  answer: Answer,
  client: string,
  what: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const unrouted = await asClient(client, '/no-such-page', headers);
  assert.equal(answer.status, 404, what);
  assert.equal(answer.body, unrouted.body, what);
  assert.deepEqual(Object.keys(answer.headers).sort(), Object.keys(unrouted.headers).sort(), what);
  assert.equal(answer.headers['content-security-policy'], undefined, what);
}

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

describe('without the secret the production profiler is the ordinary 404', () => {
  it('answers its pages, its login page without its key and its JSON like a path without a route', async () => {
    const client = newClient();
    for (const path of [
      '/_profiler',
      `/_profiler/${token}`,
      '/_profiler/search?url=x',
      '/_profiler/login',
      LOGIN.slice(0, -1),
    ])
      for (const accept of ['application/json', 'text/html'])
        await assertOrdinary404(await asClient(client, path, { accept }), client, path, { accept });
    await assertOrdinary404(await asClient(client, '/_profiler/login', {}, 'POST', ''), client, 'POST login');
  });

  it('answers a wrong bearer, an expired session and a forged one the same way', async () => {
    const client = newClient();
    const expired = credentials.session(Date.now() - 1000);
    const forged = new SecretCredentials(`${SECRET}!`).session(Date.now() + 3_600_000);
    for (const [what, headers] of [
      ['wrong bearer', bearer(`${SECRET}x`)],
      ['expired session', { cookie: `vigil_profiler_session=${expired}` }],
      ['forged session', { cookie: `vigil_profiler_session=${forged}` }],
    ] as const)
      await assertOrdinary404(await asClient(client, '/_profiler', headers), client, what);
  });

  it('refuses the right secret from another site’s page', async () => {
    const client = newClient();
    const answer = await asClient(client, '/_profiler', { ...bearer(SECRET), 'sec-fetch-site': 'cross-site' });
    await assertOrdinary404(answer, client, 'cross-site');
  });
});

describe('the secret opens it', () => {
  it('as a bearer: the list in JSON, and a report page with the page headers', async () => {
    const client = newClient();
    const list = await asClient(client, '/_profiler', { ...bearer(SECRET), accept: 'application/json' });
    assert.equal(list.status, 200);
    const tokens = (JSON.parse(list.body) as Array<{ token: string }>).map((summary) => summary.token);
    assert.ok(tokens.includes(token), list.body);
    const page = await asClient(client, `/_profiler/${token}`, bearer(SECRET));
    assert.equal(page.status, 200);
    assert.match(page.body, /robots\.txt\?from=debug/);
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    for (const name of Object.keys(page.headers)) assert.doesNotMatch(name, /^(x-debug-|access-control-)/);
  });

  it('through the login page: its cookie opens the pages, HttpOnly, Secure, SameSite=Strict', async () => {
    const client = newClient();
    const form = await asClient(client, LOGIN);
    assert.equal(form.status, 200);
    assert.match(form.body, /<form method="post"/);
    const wrong = await asClient(
      client,
      LOGIN,
      { 'content-type': 'application/x-www-form-urlencoded' },
      'POST',
      'secret=nope',
    );
    assert.equal(wrong.status, 403);
    assert.equal(wrong.headers['set-cookie'], undefined);
    const right = await asClient(
      client,
      LOGIN,
      { 'content-type': 'application/x-www-form-urlencoded' },
      'POST',
      new URLSearchParams({ secret: SECRET }).toString(),
    );
    assert.equal(right.status, 303);
    assert.equal(right.headers.location, '/_profiler');
    const [cookie = ''] = right.headers['set-cookie'] as string[];
    assert.match(cookie, /; Path=\/_profiler; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/);
    assert.ok(!cookie.includes(SECRET));
    const session = cookie.split(';')[0]!;
    const home = await asClient(client, '/_profiler', { cookie: session });
    assert.equal(home.status, 200);
    assert.match(home.body, /Latest requests/);
  });
});

describe('failed attempts are logged and bounded per client address', () => {
  it('logs each failure without what was given, then refuses even the right secret', async () => {
    const client = newClient();
    for (let attempt = 0; attempt < 10; attempt++)
      assert.equal((await asClient(client, '/_profiler', bearer(`wrong-${attempt}-${SECRET}`))).status, 404);
    await assertOrdinary404(await asClient(client, '/_profiler', bearer(SECRET)), client, 'bounded, right bearer');
    const login = await asClient(client, LOGIN);
    assert.equal(login.status, 429);
    assert.ok(Number(login.headers['retry-after']) > 0);
    // Another address is not bounded by this one's failures.
    assert.equal((await asClient(newClient(), '/_profiler', bearer(SECRET))).status, 200);
    const lines = production
      .output()
      .split('\n')
      .filter((line) => line.includes(`profiler access refused to ${client}`));
    assert.equal(lines.length, 10, production.output());
    assert.match(lines[0]!, /a wrong bearer secret \(GET \/_profiler\)/);
    assert.match(lines[9]!, /refused unchecked/);
    assert.doesNotMatch(production.output(), /wrong-\d/);
    assert.ok(!production.output().includes(SECRET));
  });
});
