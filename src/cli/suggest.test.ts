import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestWords, didYouMean, editDistance } from './suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours', () => {
    assert.equal(editDistance('profiler:lst', 'profiler:list'), 1);
    assert.equal(editDistance('profiler:lsit', 'profiler:list'), 1);
    assert.equal(editDistance('show', 'shop'), 1);
    assert.equal(editDistance('abc', 'abc'), 0);
    assert.equal(editDistance('', 'abc'), 3);
  });
});

describe('closestWords suggests what is close, and nothing else', () => {
  const commands = ['profiler:list', 'profiler:show', 'profiler:purge', 'debug:router', 'router:match'];
  it('finds a command one letter away', () => {
    assert.deepEqual(closestWords('profiler:lst', commands), ['profiler:list']);
    assert.deepEqual(closestWords('router:mtach', commands), ['router:match']);
  });
  it('finds an option the typed word begins', () => {
    assert.deepEqual(closestWords('--status', ['--ip', '--status-code', '--url']), ['--status-code']);
  });
  it('suggests nothing for a word far from all', () => {
    assert.deepEqual(closestWords('deploy', commands), []);
    assert.equal(didYouMean('x', ['--ip', '--url']), '');
  });
  it('says it in a sentence', () => {
    assert.equal(didYouMean('profiler:lst', commands), ' Did you mean "profiler:list"?');
    assert.equal(didYouMean('--ur', ['--url', '--urn']), ' Did you mean one of "--url", "--urn"?');
  });
});
