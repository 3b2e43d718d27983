import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectGarbage } from '../../../test/support/gc.js';
import { isCredentialName, queryParameters, REDACTED, Redactor } from './redact.js';

describe('credential names are recognised by pattern, in any case and spelling', () => {
  it('knows the usual names and their -, _, . and camelCase variants', () => {
    for (const name of [
      'password',
      'Password',
      'passwd',
      'new_password',
      'password_confirmation',
      'user[password]',
      'passwordHash',
      'pass',
      'pw',
      'pwd',
      'passphrase',
      'secret',
      'client_secret',
      'client-secret',
      'clientSecret',
      'secretKey',
      'token',
      'access_token',
      'accessToken',
      'refresh-token',
      'id_token',
      'X-Auth-Token',
      'x-csrf-token',
      'csrf',
      '_csrf',
      'XSRF-TOKEN',
      'x-amz-security-token',
      'api_key',
      'apiKey',
      'APIKey',
      'api-key',
      'apikey',
      'X-Api-Key',
      'X-Goog-Api-Key',
      'private_key',
      'auth',
      'auth_key',
      'authToken',
      'authorization',
      'Proxy-Authorization',
      'x-authentication',
      'session',
      'sessionid',
      'session_id',
      'sessionId',
      'PHPSESSID',
      'JSESSIONID',
      'connect.sid',
      'sid',
      'cookie',
      'Set-Cookie',
      'signature',
      'X-Hub-Signature-256',
      'X-Amz-Signature',
      'sig',
      'oauth_signature',
      'credentials',
      'otp',
      // Issue 26, item 6: cards, JWTs, framework session cookies, identity-aware proxies' headers, access keys.
      'card_number',
      'cc_number',
      'cardNumber',
      'credit-card-no',
      'cvv',
      'cvc',
      'pin',
      'pin_code',
      'passcode',
      'jwt',
      'wordpress_logged_in_0a1b2c',
      'wordpress_sec_0a1b',
      '_gh_sess',
      'remember_web_59ba36addc2b2f94',
      'SSESS4f2a9c',
      'SESS4f2a9c01',
      '__Secure-3PSID',
      '__Host-session',
      'SAPISID',
      'HSID',
      'Cf-Access-Jwt-Assertion',
      'X-Goog-Iap-Jwt-Assertion',
      'X-Amzn-Oidc-Data',
      'client_assertion',
      'access_key',
      'accessKey',
      'secret_key',
    ]) {
      assert.ok(isCredentialName(name), name);
    }
  });

  it('leaves ordinary names alone, and the debug token, which is no secret', () => {
    for (const name of [
      'author',
      'authority',
      'q',
      'page',
      'x-trace',
      'x-debug-token',
      'x-debug-token-link',
      'user-agent',
      'accept',
      'host',
      'tokens',
      'tokenizer',
      'passage',
      'bypass',
      'compass',
      'key',
      'keyboard',
      'signal',
      'designer',
      'secretary',
      'sidebar',
      'referer',
      'location',
      'x-request-id',
      'cookies_enabled',
      'code',
      'status_code',
      'pinned',
      'spin',
      'card',
      'number',
      'wordpress',
      'assessment',
      'x-amzn-oidc-identity',
    ]) {
      assert.ok(!isCredentialName(name), name);
    }
  });
});

describe('the Redactor: credential names plus the configured ones', () => {
  const redactor = new Redactor(['X-Tenant', 'user[pin]']);

  it('adds configured names, compared without case', () => {
    for (const name of ['x-tenant', 'X-TENANT', 'user[pin]', 'password']) assert.ok(redactor.redacts(name), name);
    assert.ok(!redactor.redacts('x-trace'));
  });

  it('redacts headers by name and keeps the others as text', () => {
    assert.deepEqual(
      redactor.headers({
        'X-Api-Key': 'k',
        'set-cookie': ['a=1', 'b=2'],
        'content-length': 12,
        accept: 'text/html',
        'x-tenant': 't',
        skipped: undefined,
      }),
      {
        'x-api-key': REDACTED,
        'set-cookie': REDACTED,
        'content-length': '12',
        accept: 'text/html',
        'x-tenant': REDACTED,
      },
    );
  });

  it('redacts query parameters by their decoded name', () => {
    assert.deepEqual(queryParameters('access%5Ftoken=a&user%5Bpin%5D=1&q=caf%C3%A9&flag', redactor), [
      { name: 'access_token', value: REDACTED },
      { name: 'user[pin]', value: REDACTED },
      { name: 'q', value: 'café' },
      { name: 'flag', value: '' },
    ]);
  });

  it('redacts fields at any depth, whatever they hold, and returns untouched data as it was', () => {
    const data = { user: 'ann', form: { password: 'x', nested: [{ apiKey: { id: 1 } }] }, session: null };
    assert.deepEqual(redactor.fields(data), {
      user: 'ann',
      form: { password: REDACTED, nested: [{ apiKey: REDACTED }] },
      session: REDACTED,
    });
    assert.equal(data.form.password, 'x', 'the original is not changed');
    const clean = { a: [1, { b: 'c' }] };
    assert.equal(redactor.fields(clean), clean);
  });

  it('redacts `code` as a request parameter only: elsewhere it is often an error’s', () => {
    assert.deepEqual(queryParameters('code=abc&state=s', redactor), [
      { name: 'code', value: REDACTED },
      { name: 'state', value: 's' },
    ]);
    assert.equal(redactor.text('https://app/cb?code=abc&state=s'), 'https://app/cb?code=[redacted]&state=s');
    assert.equal(redactor.text('exit code=1'), 'exit code=1');
    assert.deepEqual(redactor.fields({ code: 'x' }, true), { code: REDACTED });
    assert.deepEqual(redactor.fields({ err: { code: 'ECONNREFUSED' } }), { err: { code: 'ECONNREFUSED' } });
  });

  it('redacts `key` as a request parameter only (issue 41, item 6): elsewhere it is often a cache’s', () => {
    assert.equal(
      redactor.text('https://maps.example.com/geocode?address=x&key=abc123'),
      'https://maps.example.com/geocode?address=x&key=[redacted]',
    );
    assert.deepEqual(queryParameters('key=abc123', redactor), [{ name: 'key', value: REDACTED }]);
    assert.equal(redactor.text('cache key=users:7'), 'cache key=users:7');
    assert.deepEqual(redactor.fields({ key: 'users:7' }), { key: 'users:7' });
  });

  it('redacts as deep as a body is kept, and leaves out what is deeper', () => {
    let deep: unknown = { password: 'x' };
    for (let i = 0; i < 20; i++) deep = { level: deep };
    assert.ok(!JSON.stringify(redactor.fields(deep)).includes('"x"'), 'below 16 levels');
    let deeper: unknown = { password: 'x' };
    for (let i = 0; i < 40; i++) deeper = [deeper];
    const kept = JSON.stringify(redactor.fields(deeper));
    assert.ok(!kept.includes('"x"') && kept.includes('…[deeper levels left out]'));
  });

  it('redacts numbers that are card numbers, cycles and class instances, and never calls a getter', () => {
    class Upstream {
      constructor(readonly config: { headers: Record<string, string> }) {}
    }
    const cyclic: Record<string, unknown> = { token: 't' };
    cyclic.self = cyclic;
    const watched = {
      get secretive() {
        throw new Error('called');
      },
      password: 'p',
    };
    assert.deepEqual(redactor.fields(Object.freeze({ password: 'p' })), { password: REDACTED });
    const out = redactor.fields({
      card: 4111111111111111,
      count: 4111111111111112,
      cyclic,
      upstream: new Upstream({ headers: { Authorization: 'Bearer x' } }),
      watched,
    });
    assert.equal(out.card, REDACTED);
    assert.equal(out.count, 4111111111111112);
    assert.deepEqual(out.cyclic, { token: REDACTED, self: '[Circular]' });
    assert.ok(out.upstream instanceof Upstream && out.upstream.config.headers.Authorization === REDACTED);
    assert.equal(Object.getOwnPropertyDescriptor(out.watched, 'password')?.value, REDACTED);
  });

  it('looks at 2,000 entries of a structure at most, and says how many more there were', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({ i }));
    const out = redactor.fields({ many, bytes: Buffer.alloc(1_000_000) });
    assert.ok(out.many.length < 2_002 && String(out.many.at(-1)).startsWith('…['));
    assert.equal(out.bytes.length, 1_000_000);
    const wide = redactor.fields(Object.fromEntries(many.map(({ i }) => [`k${i}`, i])));
    assert.equal(Object.keys(wide).length, 2_001);
    assert.equal(wide['…'], '[98000 more entries]');
  });

  it('copies a structure far over the budget by the members it keeps, not by all of them', () => {
    const form: Record<string | symbol, unknown> = Object.create(null);
    for (let i = 0; i < 100_000; i++) form[`token${i}`] = `v${i}`;
    form[Symbol.for('kept')] = 'symbol';
    let looked = 0;
    const counted = new Proxy(form, {
      getOwnPropertyDescriptor: (target, key) => (looked++, Reflect.getOwnPropertyDescriptor(target, key)),
    });
    const out = redactor.fields(counted);
    assert.equal(Object.getPrototypeOf(out), null);
    assert.deepEqual(Object.keys(out).slice(0, 2), ['token0', 'token1']);
    assert.equal(Object.keys(out).length, 2_001);
    assert.equal(out['…'], '[98000 more entries]');
    assert.equal(out[Symbol.for('kept')], 'symbol');
    // Listing the names reads each member's descriptor once; the copy, the kept ones only.
    assert.ok(looked <= 100_000 + 3 * 2_000, `${looked} descriptors read`);
  });

  it('remembers a few hundred of the new names a text holds: a form of thousands would only churn them', () => {
    const fresh = new Redactor();
    const form = Array.from({ length: 10_000 }, (_, i) => `token${i}=v${i}`).join('&');
    assert.equal(fresh.text(`${form}&password=p&code=c`), `${form}&password=${REDACTED}&code=${REDACTED}`);
    const remembered = (fresh as unknown as { verdicts: Map<string, boolean> }).verdicts;
    assert.ok(remembered.size <= 256, `${remembered.size} verdicts remembered`);
    assert.equal(remembered.get('token0'), false);
  });

  it('forgets verdicts past a bound, so endless new names cost no memory', () => {
    const fresh = new Redactor();
    for (let i = 0; i < 10_000; i++) fresh.redacts(`x-name-${i}`);
    assert.ok((fresh as unknown as { verdicts: Map<string, boolean> }).verdicts.size <= 4096);
    assert.ok(fresh.redacts('password'));
  });
});

describe('a remembered verdict costs a few hundred bytes, whatever the name (issue 26, item 2)', () => {
  /** Heap kept by `fill(redactor)` once the redactor is all that is left of it, per verdict asked. */
  function keptPerVerdict(count: number, fill: (redactor: Redactor, i: number) => void): number {
    const redactor = new Redactor();
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < count; i++) fill(redactor, i);
    collectGarbage();
    const kept = process.memoryUsage().heapUsed - before;
    assert.ok(redactor.redacts('password'));
    return kept / count;
  }

  it('keeps no long name', () => {
    // 500 KB names, as JSON member names may be: each was kept whole.
    const perVerdict = keptPerVerdict(100, (redactor, i) => redactor.redacts(`${i}-${'n'.repeat(500_000)}`));
    assert.ok(perVerdict < 20_000, `${Math.round(perVerdict)} bytes per verdict`);
  });

  it('keeps no text a short name was cut from', () => {
    // A name read out of a report's JSON may be a slice of it: kept, it kept the whole text.
    const perVerdict = keptPerVerdict(50, (redactor, i) =>
      redactor.redacts(`${String(i).padStart(8, '0')}${'x'.repeat(1_000_000)}`.slice(0, 40)),
    );
    assert.ok(perVerdict < 20_000, `${Math.round(perVerdict)} bytes per verdict`);
  });
});
