import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withExposed } from './exposed-headers.js';

const DEBUG = ['x-debug-token', 'x-debug-token-link', 'Server-Timing'];

describe('withExposed merges names into an Access-Control-Expose-Headers value', () => {
  it('lists the names when there was none', () => {
    assert.equal(withExposed('', DEBUG), 'x-debug-token, x-debug-token-link, Server-Timing');
  });

  it('keeps the value there and appends what it lacks, compared without case', () => {
    assert.equal(
      withExposed('X-Total, x-debug-token', DEBUG),
      'X-Total, x-debug-token, x-debug-token-link, Server-Timing',
    );
    assert.equal(
      withExposed(' server-timing ,X-DEBUG-TOKEN,x-debug-token-link', DEBUG),
      ' server-timing ,X-DEBUG-TOKEN,x-debug-token-link',
    );
  });

  it('reads an empty or comma-only value as none', () => {
    assert.equal(withExposed(' , ', ['a']), 'a');
  });

  it('keeps a wildcard, which does not cover credentialed requests', () => {
    assert.equal(withExposed('*', ['x-debug-token']), '*, x-debug-token');
  });
});
