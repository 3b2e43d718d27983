/** A failure reads with its code first, so that the kind of trouble shows at a glance in a log line. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFailure } from './describe-failure.js';

describe('a failure is described with its code first', () => {
  it('puts a string code before the message', () => {
    const error = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    assert.equal(describeFailure(error), 'SQLITE_FULL: database or disk is full');
  });

  it('gives the message alone without a string code, and a thrown non-error as text', () => {
    assert.equal(describeFailure(new Error('gone')), 'gone');
    assert.equal(describeFailure(Object.assign(new Error('odd'), { code: 7 })), 'odd');
    assert.equal(describeFailure('plain text'), 'plain text');
  });
});
