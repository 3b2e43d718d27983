import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { bearerOf, cookieOf, sameSecret, SecretCredentials, sessionCookie } from './credentials.js';

const SECRET = 'correct horse battery staple, and more';
const credentials = new SecretCredentials(SECRET);

describe('the secret is compared in constant time, on digests', () => {
  const expected = createHash('sha256').update(SECRET).digest();
  it('matches the secret only', () => {
    assert.ok(sameSecret(SECRET, expected));
    for (const wrong of ['', SECRET.slice(0, -1), `${SECRET} `, SECRET.toUpperCase(), 'x'.repeat(10_000)])
      assert.ok(!sameSecret(wrong, expected), JSON.stringify(wrong.slice(0, 20)));
  });
  it('takes givens of any length without throwing (timingSafeEqual needs equal lengths)', () => {
    assert.ok(!credentials.isSecret('a'));
    assert.ok(credentials.isSecret(SECRET));
  });
});

describe('the login key is derived from the secret', () => {
  it('is HMAC-SHA256 of "login" under the secret, as openssl computes it', () => {
    assert.equal(credentials.loginKey, createHmac('sha256', SECRET).update('login').digest('hex'));
    assert.ok(credentials.isLoginKey(credentials.loginKey));
    assert.ok(!credentials.isLoginKey(new SecretCredentials(`${SECRET}!`).loginKey));
  });
});

describe('a session cookie is signed with a key derived from the secret, and expires', () => {
  const now = 1_800_000_000_000;
  it('opens until its expiry, not after', () => {
    const value = credentials.session(now + 1000);
    assert.equal(credentials.sessionState(value, now), 'valid');
    assert.equal(credentials.sessionState(value, now + 1000), 'expired');
  });
  it('refuses an expiry changed after signing, another secret’s signature, and garbage', () => {
    const value = credentials.session(now + 1000);
    const [, , signature] = value.split('.');
    assert.equal(credentials.sessionState(`v1.${now + 10_000_000}.${signature}`, now), 'forged');
    assert.equal(credentials.sessionState(new SecretCredentials(`${SECRET}!`).session(now + 1000), now), 'forged');
    for (const garbage of [
      '',
      'v1',
      'v1..',
      `v1.${now}.`,
      `v2.${now + 1000}.${signature}`,
      `${value}x`,
      'é'.repeat(99),
    ])
      assert.equal(credentials.sessionState(garbage, now), 'forged', garbage);
  });
  it('never shows the secret or the login key in the cookie', () => {
    const value = credentials.session(now);
    assert.ok(!value.includes(SECRET) && !value.includes(credentials.loginKey));
  });
  it('is HttpOnly, Secure, SameSite=Strict, on the profiler’s paths only', () => {
    const cookie = sessionCookie('v', '/_profiler', 43_200_000);
    assert.equal(cookie, 'vigil_profiler_session=v; Path=/_profiler; Max-Age=43200; HttpOnly; Secure; SameSite=Strict');
  });
});

describe('headers are read strictly', () => {
  it('takes a bearer token in any case of the scheme, nothing else', () => {
    assert.equal(bearerOf('Bearer abc'), 'abc');
    assert.equal(bearerOf('bearer   abc '), 'abc');
    assert.equal(bearerOf('Bearer a secret with spaces'), 'a secret with spaces');
    for (const other of [undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'Bearerabc'])
      assert.equal(bearerOf(other), undefined, String(other));
  });
  it('finds a cookie among others', () => {
    assert.equal(cookieOf('a=1; vigil_profiler_session=v1.2.x; b=3', 'vigil_profiler_session'), 'v1.2.x');
    assert.equal(cookieOf('xvigil_profiler_session=1', 'vigil_profiler_session'), undefined);
    assert.equal(cookieOf(undefined, 'a'), undefined);
  });
});
