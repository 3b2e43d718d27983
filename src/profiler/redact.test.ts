import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCredentialName, queryParameters, REDACTED, Redactor } from './redact.js';

describe('credential names are recognised by pattern, in any case and spelling', () => {
  it('knows the usual names and their -, _, . and camelCase variants', () => {
    for (const name of [
      'password', 'Password', 'passwd', 'new_password', 'password_confirmation', 'user[password]', 'passwordHash', 'pass', 'pw', 'pwd', 'passphrase',
      'secret', 'client_secret', 'client-secret', 'clientSecret', 'secretKey',
      'token', 'access_token', 'accessToken', 'refresh-token', 'id_token', 'X-Auth-Token', 'x-csrf-token', 'csrf', '_csrf', 'XSRF-TOKEN', 'x-amz-security-token',
      'api_key', 'apiKey', 'APIKey', 'api-key', 'apikey', 'X-Api-Key', 'X-Goog-Api-Key', 'private_key',
      'auth', 'auth_key', 'authToken', 'authorization', 'Proxy-Authorization', 'x-authentication',
      'session', 'sessionid', 'session_id', 'sessionId', 'PHPSESSID', 'JSESSIONID', 'connect.sid', 'sid',
      'cookie', 'Set-Cookie', 'signature', 'X-Hub-Signature-256', 'X-Amz-Signature', 'sig', 'oauth_signature', 'credentials', 'otp',
    ]) {
      assert.ok(isCredentialName(name), name);
    }
  });

  it('leaves ordinary names alone, and the debug token, which is no secret', () => {
    for (const name of [
      'author', 'authority', 'q', 'page', 'x-trace', 'x-debug-token', 'x-debug-token-link', 'user-agent', 'accept', 'host', 'tokens', 'tokenizer',
      'passage', 'bypass', 'compass', 'key', 'keyboard', 'signal', 'designer', 'secretary', 'sidebar', 'referer', 'location', 'x-request-id', 'cookies_enabled',
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
    assert.deepEqual(redactor.headers({ 'X-Api-Key': 'k', 'set-cookie': ['a=1', 'b=2'], 'content-length': 12, accept: 'text/html', 'x-tenant': 't', skipped: undefined }), {
      'x-api-key': REDACTED,
      'set-cookie': REDACTED,
      'content-length': '12',
      accept: 'text/html',
      'x-tenant': REDACTED,
    });
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
    assert.deepEqual(redactor.fields(data), { user: 'ann', form: { password: REDACTED, nested: [{ apiKey: REDACTED }] }, session: REDACTED });
    assert.equal(data.form.password, 'x', 'the original is not changed');
    const clean = { a: [1, { b: 'c' }] };
    assert.equal(redactor.fields(clean), clean);
  });

  it('forgets verdicts past a bound, so endless new names cost no memory', () => {
    const fresh = new Redactor();
    for (let i = 0; i < 10_000; i++) fresh.redacts(`x-name-${i}`);
    assert.ok((fresh as unknown as { verdicts: Map<string, boolean> }).verdicts.size <= 4096);
    assert.ok(fresh.redacts('password'));
  });
});
