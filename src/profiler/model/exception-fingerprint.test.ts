import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprintException, maskMessage } from './exception-fingerprint.js';

const raised = (message: string, overrides: Partial<Parameters<typeof fingerprintException>[0]> = {}) =>
  fingerprintException({ class: 'TypeError', message, file: 'src/shop.ts', line: 12, ...overrides });

describe('maskMessage masks what changes between requests', () => {
  it('masks numbers', () => assert.equal(maskMessage('order 42 has 3.5 items'), 'order {n} has {n} items'));
  it('masks uuids', () =>
    assert.equal(maskMessage('user 0b5e9b8e-2a57-4a8f-9d3c-6f1f0c2a9e11 gone'), 'user {uuid} gone'));
  it('masks hexadecimal ids and 0x numbers', () => {
    assert.equal(maskMessage('report a1b2c3 at 0xdeadBEEF'), 'report {hex} at {hex}');
    assert.equal(maskMessage('object 507f1f77bcf86cd799439011'), 'object {hex}');
  });
  it('keeps words that happen to be hexadecimal letters only', () =>
    assert.equal(maskMessage('cannot add a facade'), 'cannot add a facade'));
  it('masks quoted values, numbers inside them included', () => {
    assert.equal(
      maskMessage(`Cannot read properties of undefined (reading 'price')`),
      `Cannot read properties of undefined (reading '…')`,
    );
    assert.equal(maskMessage('no product "shoe 42" in `stock`'), 'no product "…" in `…`');
  });
  it('folds whitespace and bounds the message', () => {
    assert.equal(maskMessage('a\n\n  b\t c'), 'a b c');
    assert.ok(maskMessage('x'.repeat(100_000)).length <= 500);
  });
  it('reads hostile input in linear time', () => {
    for (const input of ['1'.repeat(100_000), 'a1'.repeat(50_000), '"'.repeat(100_000), "'a".repeat(50_000)])
      assert.ok(maskMessage(input).length <= 500);
  });
});

describe('fingerprintException', () => {
  it('gives failures differing only by an id the same key', () => {
    const keys = [7, 19, 2023].map((id) => raised(`product ${id} has no price`).key);
    assert.equal(new Set(keys).size, 1);
    assert.deepEqual(raised('product 7 has no price'), {
      key: keys[0],
      class: 'TypeError',
      site: 'src/shop.ts:12',
      message: 'product {n} has no price',
    });
  });
  it('tells apart another class, another place or another message', () => {
    const base = raised('boom 1').key;
    assert.notEqual(raised('boom 1', { class: 'RangeError' }).key, base);
    assert.notEqual(raised('boom 1', { line: 13 }).key, base);
    assert.notEqual(raised('bang 1').key, base);
  });
  it('names an unknown place', () => assert.equal(raised('x', { file: null, line: null }).site, 'unknown'));
});
