/** Form-style decoding that never throws: what cannot be decoded is kept as written. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeDecode } from './safe-decode.js';

describe('a percent-encoded component is decoded, or kept as written', () => {
  it('decodes escapes and reads + as a space', () => {
    assert.equal(safeDecode('a%20b+c%3D'), 'a b c=');
  });

  it('keeps a malformed escape as written, and text with nothing to decode', () => {
    assert.equal(safeDecode('100%+sure%E0'), '100%+sure%E0');
    assert.equal(safeDecode('plain'), 'plain');
  });
});
