import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redactor } from '../redaction/redact.js';
import { MAX_COOKIES, parseCookies } from './cookies.js';

const redactor = new Redactor(['theme']);

describe('the Cookie header is read pair by pair, credential-like names redacted', () => {
  it('splits, trims, unquotes and decodes values; keeps repeated names in order', () => {
    assert.deepEqual(parseCookies('a=1; b="two words";c=caf%C3%A9 ; a=again', redactor), [
      { name: 'a', value: '1' },
      { name: 'b', value: 'two words' },
      { name: 'c', value: 'café' },
      { name: 'a', value: 'again' },
    ]);
  });

  it('redacts session and token cookies and the names an operator adds', () => {
    assert.deepEqual(parseCookies('PHPSESSID=x1; remember_token=x2; theme=dark; lang=fr', redactor), [
      { name: 'PHPSESSID', value: '[redacted]' },
      { name: 'remember_token', value: '[redacted]' },
      { name: 'theme', value: '[redacted]' },
      { name: 'lang', value: 'fr' },
    ]);
  });

  it('skips pairs without a name or "=", keeps a broken escape as sent, and reads no header as none', () => {
    assert.deepEqual(parseCookies('=x; novalue; ;bad=%E0%A4%A', redactor), [{ name: 'bad', value: '%E0%A4%A' }]);
    assert.deepEqual(parseCookies(undefined, redactor), []);
    assert.deepEqual(parseCookies(['a=1', 'b=2'], redactor), [
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ]);
  });

  it(`keeps ${MAX_COOKIES} cookies and says how many more there were`, () => {
    const header = Array.from({ length: MAX_COOKIES + 5 }, (_, i) => `c${i}=${i}`).join('; ');
    const cookies = parseCookies(header, redactor);
    assert.equal(cookies.length, MAX_COOKIES + 1);
    assert.deepEqual(cookies.at(-1), { name: '…', value: '5 more cookies' });
  });
});
