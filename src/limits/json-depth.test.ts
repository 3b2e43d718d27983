import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nestsDeeperThan } from './json-depth.js';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

describe('nestsDeeperThan tells how deep JSON nests, in one pass', () => {
  it('accepts nesting up to the limit and refuses one level more, arrays and objects alike', () => {
    assert.equal(nestsDeeperThan(nested(3), 3), false);
    assert.equal(nestsDeeperThan(nested(4), 3), true);
    assert.equal(nestsDeeperThan('{"a":{"b":{"c":1}}}', 3), false);
    assert.equal(nestsDeeperThan('{"a":[{"c":[]}]}', 3), true);
  });

  it('counts depth, not brackets: siblings do not add up', () => {
    assert.equal(nestsDeeperThan(`[${'[],'.repeat(10_000)}[]]`, 2), false);
  });

  it('skips brackets inside strings, escaped quotes and backslashes included', () => {
    assert.equal(nestsDeeperThan(`["${'['.repeat(100)}"]`, 1), false);
    assert.equal(nestsDeeperThan('["\\"[[[", "{{"]', 1), false);
    assert.equal(nestsDeeperThan('["\\\\", [[]]]', 2), true);
  });

  it('answers 100,000 levels without recursion', () => {
    assert.equal(nestsDeeperThan(nested(100_000, '{"a":', '}'), 1000), true);
  });
});
