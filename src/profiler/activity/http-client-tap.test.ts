import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { undiciContentLength } from './http-client-tap.js';

const bytes = (...texts: string[]) => texts.map((text) => Buffer.from(text, 'latin1'));

describe("undiciContentLength reads a response's length from undici's header bytes", () => {
  it('finds the name in any case, among other headers', () => {
    assert.equal(undiciContentLength(bytes('date', 'x', 'content-length', '42')), 42);
    assert.equal(undiciContentLength(bytes('Content-Length', '7')), 7);
    assert.equal(undiciContentLength(bytes('CONTENT-LENGTH', '0')), 0);
    assert.equal(undiciContentLength(['content-length', '12']), 12);
  });

  it('takes spaces and tabs around the digits', () => {
    assert.equal(undiciContentLength(bytes('content-length', ' 42\t')), 42);
  });

  it('gives null for no such header, a name that only looks like it, or a value that is not a length', () => {
    assert.equal(undiciContentLength(undefined), null);
    assert.equal(undiciContentLength(bytes('content-type', 'text/plain')), null);
    // Same length, one byte off: `_` for `-`, and a byte whose 0x20 bit would make it `-`.
    assert.equal(undiciContentLength(bytes('content_length', '5')), null);
    assert.equal(undiciContentLength(bytes('content\rlength', '5')), null);
    for (const value of ['', '  ', '4 2', '-1', '0x10', '1e3', '9'.repeat(30)])
      assert.equal(undiciContentLength(bytes('content-length', value)), null, JSON.stringify(value));
  });
});
