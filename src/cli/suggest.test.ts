import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestWords, didYouMean } from './suggest.js';

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
