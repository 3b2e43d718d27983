import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatNumber, renderValue } from './generic-panel.js';

describe('a section without a renderer of its own shows its data as tables', () => {
  it('draws an array of records as one table, its columns named by the records’ keys', () => {
    const page = renderValue([
      { route: '/a', count: 3, meanMs: 3.287261999998009 },
      { route: '/b', count: 1, slowest: true },
    ]).value;
    assert.match(
      page,
      /^<table class="records"><thead><tr><th>route<\/th><th>count<\/th><th>meanMs<\/th><th>slowest<\/th><\/tr><\/thead>/,
    );
    assert.match(
      page,
      /<tr><td><code>\/a<\/code><\/td><td><code>3<\/code><\/td><td><code>3\.287<\/code><\/td><td><\/td><\/tr>/,
    );
    assert.doesNotMatch(page, /<th>0<\/th>|<th>1<\/th>/);
  });

  it('lists an array of plain values without index keys', () => {
    assert.equal(
      renderValue(['fr', 'en', 2.5]).value,
      '<ul class="values"><li><code>fr</code></li><li><code>en</code></li><li><code>2.5</code></li></ul>',
    );
    assert.equal(renderValue([]).value, '<span class="muted">(empty list)</span>');
  });

  it('keeps objects as name and value tables, nested, and escapes what it shows', () => {
    assert.equal(
      renderValue({ agent: '<b>', nested: { ok: true } }).value,
      '<table class="kv"><tbody><tr><th>agent</th><td><code>&lt;b&gt;</code></td></tr><tr><th>nested</th><td><table class="kv"><tbody><tr><th>ok</th><td><code>true</code></td></tr></tbody></table></td></tr></tbody></table>',
    );
  });
});

describe('numbers are shown rounded, never raw', () => {
  it('keeps whole numbers, three decimals above 1, three significant digits below', () => {
    assert.equal(formatNumber(3.287261999998009), '3.287');
    assert.equal(formatNumber(1200.5), '1200.5');
    assert.equal(formatNumber(42), '42');
    assert.equal(formatNumber(0.000123456), '0.000123');
    assert.equal(formatNumber(-0.5), '-0.5');
    assert.equal(formatNumber(Number.NaN), 'NaN');
  });
});
