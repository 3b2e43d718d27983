import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance } from './edit-distance.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours', () => {
    assert.equal(editDistance('profiler:lst', 'profiler:list'), 1);
    assert.equal(editDistance('profiler:lsit', 'profiler:list'), 1);
    assert.equal(editDistance('show', 'shop'), 1);
    assert.equal(editDistance('abc', 'abc'), 0);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('product', 'products'), 1);
  });

  it('gives the same distance within the bound as without it', () => {
    const words = ['', 'a', 'ab', 'ba', 'abc', 'acb', 'products', 'product', 'prodcuts', 'users', 'orders', 'xyz'];
    for (const a of words)
      for (const b of words)
        for (const max of [0, 1, 2, 3]) {
          const exact = editDistance(a, b);
          assert.equal(editDistance(a, b, max), exact <= max ? exact : max + 1, `${a} ${b} ${max}`);
        }
  });

  it('answers max + 1 for words too far apart in length, however long', () => {
    assert.equal(editDistance('a'.repeat(100_000), 'api', 3), 4);
    assert.equal(editDistance('b'.repeat(2000), 'a'.repeat(2000), 2), 3);
  });
});
