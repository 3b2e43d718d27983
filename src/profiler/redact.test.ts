import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queryParameters, Redactor } from './redact.js';

describe('credentials in headers are always redacted: authorization, cookie, set-cookie, proxy-authorization', () => {
  it('replaces their values with [redacted] whatever the case of the name', () => {
    const stored = new Redactor().headers({
      Authorization: 'Bearer secret',
      cookie: 'session=abc',
      'Set-Cookie': ['a=1', 'b=2'],
      'PROXY-AUTHORIZATION': 'Basic Zm9vOmJhcg==',
      host: 'localhost:8443',
    });
    assert.deepEqual(stored, {
      authorization: '[redacted]',
      cookie: '[redacted]',
      'set-cookie': '[redacted]',
      'proxy-authorization': '[redacted]',
      host: 'localhost:8443',
    });
  });
  it('cannot be switched off by the operator\'s list', () => {
    assert.equal(new Redactor(['x-api-key']).headers({ authorization: 'Bearer secret' }).authorization, '[redacted]');
  });
});

describe('the operator adds header and query names to redact (PROFILER_REDACT), matched case-insensitively', () => {
  const redactor = new Redactor(['X-Api-Key', 'token']);

  it('redacts the added headers besides the built-in ones', () => {
    assert.deepEqual(redactor.headers({ 'x-api-key': 'k', 'X-TOKEN': 't', Token: 'u', cookie: 'c' }), {
      'x-api-key': '[redacted]',
      'x-token': 't',
      token: '[redacted]',
      cookie: '[redacted]',
    });
  });
  it('says which names it redacts', () => {
    for (const name of ['authorization', 'Cookie', 'x-api-key', 'X-API-KEY', 'TOKEN']) assert.equal(redactor.redacts(name), true, name);
    for (const name of ['x-api', 'api-key', 'tokens', 'host', '']) assert.equal(redactor.redacts(name), false, name);
  });
});

describe('stored headers have lower-case names and string values', () => {
  it('lower-cases names, turns numbers into strings, keeps lists, and drops absent values', () => {
    const stored = new Redactor().headers({ 'Content-Length': 42, Accept: 'text/html', 'X-Forwarded-For': ['10.0.0.1', '10.0.0.2'], 'x-absent': undefined });
    assert.deepEqual(stored, { 'content-length': '42', accept: 'text/html', 'x-forwarded-for': ['10.0.0.1', '10.0.0.2'] });
  });
});

describe('a URL keeps everything but the values of redacted query parameters', () => {
  const redactor = new Redactor(['api_key', 'token']);

  it('leaves a URL without a query as it is', () => {
    assert.equal(redactor.url('https://localhost:8443/items/42'), 'https://localhost:8443/items/42');
  });
  it('replaces the value of each redacted parameter, keeping the others byte for byte', () => {
    assert.equal(
      redactor.url('https://localhost:8443/search?q=a%20b&api_key=s3cr3t&page=2&token=abc&token=def'),
      'https://localhost:8443/search?q=a%20b&api_key=[redacted]&page=2&token=[redacted]&token=[redacted]',
    );
  });
  it('matches the decoded, case-folded name but keeps the name as sent', () => {
    assert.equal(redactor.url('/x?API_KEY=1&api%5Fkey=2&api+key=3'), '/x?API_KEY=[redacted]&api%5Fkey=[redacted]&api+key=3');
  });
  it('redacts a parameter without a value, and one whose value holds "="', () => {
    assert.equal(redactor.url('/x?token&a=1&api_key=x=y'), '/x?token=[redacted]&a=1&api_key=[redacted]');
  });
  it('redacts the built-in credential names in a query too', () => {
    assert.equal(new Redactor().url('/x?authorization=Bearer%20t&cookie=c&q=1'), '/x?authorization=[redacted]&cookie=[redacted]&q=1');
  });
  it('survives a malformed escape in a name', () => {
    assert.equal(redactor.url('/x?%E0%A4%A=1&tok%zzen=2&token=3'), '/x?%E0%A4%A=1&tok%zzen=2&token=[redacted]');
  });
  it('keeps empty pairs and a trailing "?"', () => {
    assert.equal(redactor.url('/x?'), '/x?');
    assert.equal(redactor.url('/x?&&token=1&'), '/x?&&token=[redacted]&');
  });
});

describe('query parameters are listed decoded, redacted values replaced', () => {
  const redactor = new Redactor(['api_key']);

  it('decodes names and values, "+" as a space', () => {
    assert.deepEqual(queryParameters('q=caf%C3%A9+au+lait&a%20b=1', redactor), [
      { name: 'q', value: 'café au lait' },
      { name: 'a b', value: '1' },
    ]);
  });
  it('replaces the values of redacted names, matched after decoding', () => {
    assert.deepEqual(queryParameters('API%5FKEY=s3cr3t&authorization=x&page=2', redactor), [
      { name: 'API_KEY', value: '[redacted]' },
      { name: 'authorization', value: '[redacted]' },
      { name: 'page', value: '2' },
    ]);
  });
  it('gives an empty value to a bare name and keeps "=" inside a value', () => {
    assert.deepEqual(queryParameters('flag&expr=a=b', redactor), [
      { name: 'flag', value: '' },
      { name: 'expr', value: 'a=b' },
    ]);
  });
  it('skips empty pairs and gives nothing for an empty query', () => {
    assert.deepEqual(queryParameters('', redactor), []);
    assert.deepEqual(queryParameters('&&a=1&', redactor), [{ name: 'a', value: '1' }]);
  });
  it('keeps a malformed escape as sent', () => {
    assert.deepEqual(queryParameters('a=%E0%A4%A&%zz=1', redactor), [
      { name: 'a', value: '%E0%A4%A' },
      { name: '%zz', value: '1' },
    ]);
  });
});
