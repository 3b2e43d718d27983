import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeTarget, isValidHost, urlHost } from './request-url.js';

describe('encodeTarget makes a path and query fit for a header', () => {
  it('keeps what a URI may hold, escapes included', () => {
    const target = "/a-b._~/c?x=1&y=%3C%2F&z=!$'()*+,;=:@/?";
    assert.equal(encodeTarget(target), target);
  });

  it('encodes markup, quotes, spaces, controls and the characters RFC 3986 leaves out', () => {
    assert.equal(encodeTarget('/with-slash/?q=<vgl-1>"\' x\t\r\n'), "/with-slash/?q=%3Cvgl-1%3E%22'%20x%09%0D%0A");
    assert.equal(encodeTarget('/?a=[]{}|\\^`#'), '/?a=%5B%5D%7B%7D%7C%5C%5E%60%23');
  });

  it('encodes a % that starts no escape, and keeps one that does', () => {
    assert.equal(encodeTarget('/?a=%&b=%4&c=%zz&d=%4a'), '/?a=%25&b=%254&c=%25zz&d=%4a');
  });

  it('encodes a character Node read as latin1 as the one byte the client sent, others as UTF-8', () => {
    assert.equal(encodeTarget('/\u00e9\u00ff'), '/%E9%FF');
    assert.equal(encodeTarget('/\u2028\u{1f600}'), '/%E2%80%A8%F0%9F%98%80');
  });
});

describe('urlHost writes HOST as a URL does', () => {
  it('brackets IPv6, keeps names and IPv4, and names no host for a wildcard', () => {
    assert.equal(urlHost('::1'), '[::1]');
    assert.equal(urlHost('localhost'), 'localhost');
    assert.equal(urlHost('127.0.0.1'), '127.0.0.1');
    assert.equal(urlHost('0.0.0.0'), '');
    assert.equal(urlHost('::'), '');
  });

  it('gives a host the kernel accepts as valid', () => {
    for (const host of ['::1', 'localhost', '10.0.0.1']) assert.ok(isValidHost(`${urlHost(host)}:8443`), host);
  });
});
