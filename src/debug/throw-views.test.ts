import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ThrowView } from './throw-views.js';

describe('a view of a throw path is made once per key', () => {
  it('makes a view once per key, and each view apart from the others', () => {
    const length = new ThrowView<readonly number[], number>();
    const first = new ThrowView<readonly number[], number>();
    const frames = [3, 4, 5];
    let made = 0;
    const lengthOf = (key: readonly number[]) => ++made && key.length;
    assert.equal(length.of(frames, lengthOf), 3);
    assert.equal(length.of(frames, lengthOf), 3);
    assert.equal(
      first.of(frames, (key) => ++made && key[0]!),
      3,
    );
    assert.equal(made, 2);
    assert.equal(length.of([1], lengthOf), 1);
    assert.equal(made, 3);
  });

  it('keeps a view made as undefined, and one set in place of another', () => {
    const view = new ThrowView<object, string | undefined>();
    const key = {};
    let made = 0;
    view.of(key, () => void made++);
    view.of(key, () => void made++);
    assert.equal(made, 1);
    view.set(key, 'b');
    assert.equal(view.get(key), 'b');
    assert.equal(new ThrowView<object, string>().get(key), undefined);
  });
});
