import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunningHandlers } from './execution-time.js';

describe('RunningHandlers', () => {
  it('counts what runs; an entry leaves once, from any place in the list', () => {
    const handlers = new RunningHandlers(0);
    const stopped: string[] = [];
    const entries = ['a', 'b', 'c', 'd'].map((name) => handlers.add(() => stopped.push(name)));
    assert.equal(handlers.size, 4);
    assert.equal(handlers.delete(entries[1]!), true);
    assert.equal(handlers.delete(entries[1]!), false);
    assert.equal(handlers.delete(entries[3]!), true);
    assert.equal(handlers.delete(entries[0]!), true);
    assert.equal(handlers.size, 1);
    handlers.stopAll(new Error('heap'));
    assert.deepEqual(stopped, ['c']);
  });

  it('stops every running handler oldest first, each taking itself out', () => {
    const handlers = new RunningHandlers(0);
    const stopped: string[] = [];
    const stopping = (name: string) => (): void => {
      stopped.push(name);
      handlers.delete(entry.get(name)!);
    };
    const entry = new Map(['a', 'b', 'c'].map((name) => [name, handlers.add(stopping(name))]));
    handlers.stopAll(new Error('heap'));
    assert.deepEqual(stopped, ['a', 'b', 'c']);
    assert.equal(handlers.size, 0);
    // The list is whole again after it emptied: new entries are seen.
    const late = handlers.add(() => stopped.push('late'));
    handlers.stopAll(new Error('heap'));
    assert.deepEqual(stopped, ['a', 'b', 'c', 'late']);
    assert.equal(handlers.delete(late), true);
  });
});
