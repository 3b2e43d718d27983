import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { currentScope, MAX_SPANS, RequestScope, runInScope, span } from './request-scope.js';

const shape = (scope: RequestScope) => scope.spans.map(({ name, depth, error }) => [name, depth, error]);

describe('span() records the steps of the request it runs in, nested', () => {
  it('returns what fn returns, sync or async, and nests spans by where they run', async () => {
    const scope = new RequestScope(performance.now());
    const result = await runInScope(scope, async () => {
      const a = span('sync', () => 1);
      const b = await span('async', async () => {
        await Promise.all([span('left', () => sleep(5)), span('right', async () => span('inner', () => 2))]);
        return 3;
      });
      return a + b;
    });
    assert.equal(result, 4);
    assert.deepEqual(shape(scope), [
      ['sync', 0, false],
      ['async', 0, false],
      ['left', 1, false],
      ['right', 1, false],
      ['inner', 2, false],
    ]);
    const left = scope.spans[2]!;
    assert.ok(left.duration! >= 4, `left took ${left.duration} ms`);
    assert.ok(scope.spans[1]!.duration! >= left.duration!);
  });

  it('records a span whose fn throws or rejects, and passes the error on', async () => {
    const scope = new RequestScope(performance.now());
    await runInScope(scope, async () => {
      assert.throws(
        () =>
          span('throws', () => {
            throw new Error('sync');
          }),
        /sync/,
      );
      await assert.rejects(
        span('rejects', async () => {
          throw new Error('async');
        }),
        /async/,
      );
    });
    assert.deepEqual(shape(scope), [
      ['throws', 0, true],
      ['rejects', 0, true],
    ]);
    assert.ok(scope.spans.every((record) => record.duration !== null));
  });

  it(`keeps ${MAX_SPANS} spans and counts the rest`, () => {
    const scope = new RequestScope(performance.now());
    runInScope(scope, () => {
      for (let i = 0; i < MAX_SPANS + 10; i++) span(`s${i}`, () => i);
    });
    assert.equal(scope.spans.length, MAX_SPANS);
    assert.equal(scope.spansOmitted, 10);
  });

  it('only runs fn outside a request, or once the request is closed', () => {
    assert.equal(
      span('nowhere', () => 'ran'),
      'ran',
    );
    const scope = new RequestScope(performance.now());
    runInScope(scope, () => {
      scope.close();
      assert.equal(
        span('late', () => 'ran'),
        'ran',
      );
      assert.equal(currentScope(), undefined);
    });
    assert.deepEqual(scope.spans, []);
  });

  it('marks a span still running when the report is made with a null duration', async () => {
    const scope = new RequestScope(performance.now());
    let release!: () => void;
    const pending = runInScope(scope, () => span('open', () => new Promise<void>((resolve) => (release = resolve))));
    assert.equal(scope.spans[0]!.duration, null);
    release();
    await pending;
    assert.notEqual(scope.spans[0]!.duration, null);
  });
});

describe('a thenable that is not a Promise is handed back as it is', () => {
  it('returns the very object, not a promise of it', () => {
    const scope = new RequestScope(performance.now());
    const builder = { then: (resolve: (value: number) => void) => resolve(1), where: () => builder };
    const result = runInScope(scope, () => span('query builder', () => builder));
    assert.equal(result, builder);
    assert.notEqual(scope.spans[0]!.duration, null);
  });
});
