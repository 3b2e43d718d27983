import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOKEN_SPACE, TokenPermutation } from './token-permutation.js';

/** Keys written out, so that the expectations below are the same on every run. */
const KEY = Uint8Array.from({ length: 32 }, (_, i) => i);
const OTHER_KEY = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);

describe('the token permutation is a bijection of the 24-bit counter', () => {
  const permutation = new TokenPermutation(KEY);

  it('maps the 16,777,216 counter values to 16,777,216 distinct tokens', () => {
    const hit = new Uint8Array(TOKEN_SPACE);
    for (let value = 0; value < TOKEN_SPACE; value++) hit[permutation.apply(value)] = 1;
    assert.equal(hit.indexOf(0), -1, 'every 24-bit value is the image of one counter value');
  });

  it('is undone by its inverse', () => {
    for (let value = 0; value < TOKEN_SPACE; value += 17)
      assert.equal(permutation.invert(permutation.apply(value)), value);
    assert.equal(permutation.invert(permutation.apply(TOKEN_SPACE - 1)), TOKEN_SPACE - 1);
  });

  it('wraps: the counter is taken modulo 2^24', () => {
    assert.equal(permutation.token(TOKEN_SPACE), permutation.token(0));
    assert.equal(permutation.token(3 * TOKEN_SPACE + 5), permutation.token(5));
  });
});

describe('the token permutation is fixed by its key', () => {
  it('gives the same tokens for the same key (checked against openssl and a separate implementation)', () => {
    const permutation = new TokenPermutation(KEY);
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((counter) => permutation.token(counter)),
      ['3f3902', 'be6b6f', 'c9f2ca', 'c30f8f', '83632c', 'aee69e', 'cad07a', 'aa5526'],
    );
    assert.equal(permutation.token(0xffffff), '49bbc4');
    assert.equal(permutation.token(123_456), '9c421c');
  });

  it('gives other tokens for another key', () => {
    const permutation = new TokenPermutation(OTHER_KEY);
    assert.deepEqual(
      [0, 1, 2, 3].map((counter) => permutation.token(counter)),
      ['a8252c', '5d9621', '48458d', 'f6b336'],
    );
    const mine = new TokenPermutation(KEY);
    const same = Array.from({ length: 4096 }, (_, counter) => counter).filter(
      (counter) => mine.token(counter) === permutation.token(counter),
    );
    assert.ok(same.length < 8, `${same.length} of 4096 counter values give the same token under both keys`);
  });

  it('refuses a key that is not 32 bytes', () => {
    assert.throws(() => new TokenPermutation(new Uint8Array(16)), /a token key is 32 bytes, not 16/);
  });
});

describe('consecutive counter values give tokens that look random', () => {
  it('spreads 4096 consecutive tokens over every leading hex digit, in no order', () => {
    const permutation = new TokenPermutation(KEY);
    const tokens = Array.from({ length: 4096 }, (_, counter) => permutation.token(counter));
    const byDigit = new Map<string, number>();
    for (const token of tokens) byDigit.set(token[0]!, (byDigit.get(token[0]!) ?? 0) + 1);
    assert.equal(byDigit.size, 16);
    // 256 expected for each digit; a sequence (or a counter in disguise) would pile up in a few.
    for (const [digit, count] of byDigit) assert.ok(count > 192 && count < 320, `${count} tokens start with ${digit}`);
    const ascending = tokens.filter((token, i) => i > 0 && token > tokens[i - 1]!).length;
    assert.ok(ascending > 1800 && ascending < 2300, `${ascending} of 4095 steps go up`);
  });
});
