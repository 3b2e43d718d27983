import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oldGenerationLimit } from './heap-guard.js';

const MB = 1024 * 1024;

describe('oldGenerationLimit', () => {
  it('is --max-old-space-size when given, the last one winning, in NODE_OPTIONS spelling too', () => {
    assert.equal(oldGenerationLimit(['--max-old-space-size=128'], 320 * MB, '13.6.233.10-node.28'), 128 * MB);
    assert.equal(
      oldGenerationLimit(['--max_old_space_size=64', '--max-old-space-size=96'], 144 * MB, '12.4.254.21-node.33'),
      96 * MB,
    );
  });

  it('is the heap limit less three semi-spaces: 16 MB each before V8 13, 64 MB from it', () => {
    assert.equal(oldGenerationLimit([], 4144 * MB, '12.4.254.21-node.33'), 4096 * MB);
    assert.equal(oldGenerationLimit([], 4288 * MB, '13.6.233.10-node.28'), 4096 * MB);
  });

  it('takes an explicit --max-semi-space-size', () => {
    assert.equal(oldGenerationLimit(['--max-semi-space-size=8'], 4120 * MB, '13.6.233.10-node.28'), 4096 * MB);
  });
});
