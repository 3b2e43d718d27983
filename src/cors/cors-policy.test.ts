import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/index.js';
import { CorsPolicy } from './cors-policy.js';

const policy = new CorsPolicy(loadConfig({}, '/srv').cors);

describe('the default policy allows http(s) localhost and 127.0.0.1 with an optional port', () => {
  it('allows exactly those origins, case-insensitively', () => {
    for (const origin of ['http://localhost', 'https://localhost:3000', 'http://127.0.0.1:8080', 'HTTPS://LOCALHOST:1'])
      assert.ok(policy.allows(origin), origin);
    for (const origin of [
      'http://127.0.0.2',
      'https://localhost.evil.com',
      'http://evil.com/?http://localhost',
      'ftp://localhost',
      'http://localhost:',
      'http://localhost:80a',
      'null',
    ]) {
      assert.ok(!policy.allows(origin), origin);
    }
  });
});

describe('a preflight is answered by the policy', () => {
  it('allows a listed method and header with the policy headers', () => {
    assert.deepEqual(policy.preflight('http://localhost:3000', 'post', 'Content-Type'), {
      verdict: 'answer',
      headers: {
        vary: 'Origin',
        'access-control-allow-methods': 'GET, OPTIONS, POST, PUT, PATCH, DELETE',
        'access-control-allow-headers': 'content-type, authorization',
        'access-control-max-age': '3600',
        'access-control-allow-origin': 'http://localhost:3000',
      },
    });
  });
  it('leaves Access-Control-Allow-Origin out for a disallowed origin, whatever is asked', () => {
    const answer = policy.preflight('https://evil.example', 'TRACE', 'x-anything');
    assert.equal(answer.verdict, 'answer');
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
  });
  it('refuses an unlisted method, then an unlisted header', () => {
    assert.equal(policy.preflight('http://localhost', 'CONNECT', undefined).verdict, 'method-refused');
    const answer = policy.preflight('http://localhost', 'PUT', 'content-type, X-Secret, authorization');
    assert.deepEqual([answer.verdict, 'header' in answer ? answer.header : ''], ['header-refused', 'x-secret']);
  });
  it('does not ask about simple headers', () => {
    assert.equal(policy.preflight('http://localhost', 'GET', 'accept, accept-language').verdict, 'answer');
  });
});

describe('actual requests from an allowed origin get the origin and the exposed headers', () => {
  it('adds them for an allowed origin only', () => {
    assert.deepEqual(policy.actualRequestHeaders('http://127.0.0.1:5173'), {
      'access-control-allow-origin': 'http://127.0.0.1:5173',
      vary: 'Origin',
      'access-control-expose-headers': 'link',
    });
    assert.equal(policy.actualRequestHeaders('http://127.0.0.2:5173'), undefined);
  });
});
