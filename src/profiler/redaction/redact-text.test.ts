import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCredentialName } from './redact.js';
import { redactJson, redactText } from './redact-text.js';

const text = (value: string) => redactText(value, isCredentialName, '[redacted]');
const json = (value: string) => redactJson(value, isCredentialName, '[redacted]');
/** rawurlencode, as x-debug-exception carries a message. */
const rawurlencode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

describe('secret name=value pairs are redacted inside any text', () => {
  it('redacts query parameters of a URL, keeping the others and the shape', () => {
    assert.equal(
      text('https://h/with-slash/?access_token=s3&page=2&q=a%20b'),
      'https://h/with-slash/?access_token=[redacted]&page=2&q=a%20b',
    );
    assert.equal(
      text('/x?user%5Bpassword%5D=s3&api-key=s3#frag'),
      '/x?user%5Bpassword%5D=[redacted]&api-key=[redacted]#frag',
    );
  });

  it('redacts a URL inside a message, up to its closing quote', () => {
    assert.equal(
      text('No route found for "GET https://h/x" (from "https://app/login?user=ann&password=s3cr3t&next=%2Fhome")'),
      'No route found for "GET https://h/x" (from "https://app/login?user=ann&password=[redacted]&next=%2Fhome")',
    );
  });

  it('redacts inside percent-encoded text, as x-debug-exception carries the message', () => {
    const message = 'No route found for "GET https://h/x" (from "https://app/?password=s3cr3t&next=1")';
    assert.equal(decodeURIComponent(text(rawurlencode(message))), message.replace('s3cr3t', '[redacted]'));
  });

  it('keeps a percent-encoded value whole in plain text: %26 is part of it there', () => {
    assert.equal(text('?token=a%26b%22c&x=1'), '?token=[redacted]&x=1');
  });

  it('takes every character a URL may hold as part of the value', () => {
    assert.equal(text("?password=it's;a,(secret)!/:@+=x&next=1"), '?password=[redacted]&next=1');
  });

  it('redacts the password of a URL’s userinfo', () => {
    assert.equal(text('Referer https://ann:hunter2@host/path?x=1'), 'Referer https://ann:[redacted]@host/path?x=1');
    assert.equal(text('https://host/path?x=a:b@c'), 'https://host/path?x=a:b@c', 'an @ in the query is no userinfo');
  });

  it('leaves text without secrets as it is, and redacts only once', () => {
    for (const plain of ['a == b', 'token=', 'q=1&page=2', 'text/html;q=0.9', 'charset=UTF-8', ''])
      assert.equal(text(plain), plain);
    const once = text('?token=abc&sig=def');
    assert.equal(text(once), once);
  });

  it('looks at a bounded name before each = (long runs cost no more)', () => {
    const long = `${'a'.repeat(100_000)}token=x`;
    assert.equal(text(long), `${'a'.repeat(100_000)}token=[redacted]`);
  });
});

describe('JSON text is redacted as each of its strings would be', () => {
  const samples = [
    'https://h/?token=abc&page=2',
    'line one\npassword=hunter2\ttoken=y\\z "sig=w" end',
    'quote"password=abc"quote',
    'control\u0001password=abc\u0002',
    'unicode \ud83d\ude00 token=\ud83d\ude00x\udc00y&z=1 lone \ud800',
    'back\\slash\\token=a\\b\\"c',
    rawurlencode('(from "https://app/?api_key=s3cr3t&x=1")'),
    'https://ann:pw@host/ and https://bob:@host/',
    'nothing to see here',
  ];

  it('stores for each sample what redacting the string itself would', () => {
    for (const sample of samples) {
      const viaJson = JSON.parse(json(JSON.stringify(sample))) as string;
      assert.equal(viaJson, text(sample), JSON.stringify(sample));
    }
  });

  it('keeps the JSON valid and redacts inside every member', () => {
    const data = {
      headers: { referer: 'https://x/?token=abc&b="q"' },
      list: ['?password=1', { m: 'x=1&secret=2' }],
      n: 3,
    };
    const redacted = JSON.parse(json(JSON.stringify(data)));
    assert.deepEqual(redacted, {
      headers: { referer: 'https://x/?token=[redacted]&b="q"' },
      list: ['?password=[redacted]', { m: 'x=1&secret=[redacted]' }],
      n: 3,
    });
  });

  it('agrees with the string rule on many generated strings', () => {
    const pieces = [
      'token',
      'password',
      'x',
      '=',
      '%3D',
      '%3F',
      '&',
      '%26',
      '"',
      '\\',
      '\n',
      '\u0001',
      ' ',
      '?',
      'é',
      '\ud83d\ude00',
      '…',
      ':',
      '@',
      '://',
      'a:b@',
      '[',
      ']',
      '%5B',
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 2000; round++) {
      let sample = '';
      for (let i = 0; i < 12; i++) sample += pieces[next() % pieces.length];
      assert.equal(JSON.parse(json(JSON.stringify(sample))), text(sample), JSON.stringify(sample));
    }
  });
});

describe('the scan is linear, whatever the text', () => {
  it('never looks for pairs inside a value it redacted', () => {
    let asked = 0;
    const rule = (name: string) => {
      asked++;
      return isCredentialName(name);
    };
    const hostile = `?${'token='.repeat(20_000)}x`;
    assert.equal(redactText(hostile, rule, '[redacted]'), '?token=[redacted]');
    assert.equal(asked, 1);
    asked = 0;
    assert.equal(redactText(rawurlencode(hostile), rule, '[redacted]'), '%3Ftoken%3D[redacted]');
    assert.equal(asked, 1);
  });
});
