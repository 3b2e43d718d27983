/** A thrown value that is not an Error: described in one bounded line, raised where its handler was declared. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { framesOf, installStackTraces, type StackFrame } from '../debug/stack-trace.js';
import { describeError } from './http-errors.js';
import { describeValue, MAX_VALUE_DESCRIPTION, ThrownValueError } from './thrown-value.js';

installStackTraces();

describe('describeValue names any value in one bounded line', () => {
  it('gives the type and a short form of primitives', () => {
    assert.deepEqual(describeValue('boom'), { type: 'string', text: 'boom' });
    assert.deepEqual(describeValue(42), { type: 'number', text: '42' });
    assert.deepEqual(describeValue(undefined), { type: 'undefined', text: 'undefined' });
    assert.deepEqual(describeValue(null), { type: 'null', text: 'null' });
    assert.deepEqual(describeValue(10n), { type: 'bigint', text: '10n' });
    assert.deepEqual(describeValue(Symbol('s')), { type: 'symbol', text: 'Symbol(s)' });
  });
  it('shows an object shallowly, without calling its getters or its own inspect', () => {
    let called = false;
    const value = {
      code: 42,
      nested: { deep: { deeper: 1 } },
      get trap() {
        called = true;
        return 1;
      },
      [Symbol.for('nodejs.util.inspect.custom')]() {
        called = true;
        return 'custom';
      },
    };
    const { type, text } = describeValue(value);
    assert.equal(type, 'object');
    assert.match(text, /code: 42/);
    assert.equal(called, false);
  });
  it('survives values whose conversion throws', () => {
    assert.equal(describeValue(Object.create(null)).type, 'object');
    const trap = () => {
      throw new Error('trap');
    };
    const proxy = new Proxy(
      {},
      { get: trap, has: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap },
    );
    assert.equal(typeof describeValue(proxy).text, 'string');
    assert.equal(describeValue({ toString: trap, valueOf: trap }).type, 'object');
  });
  it(`cuts a long description at ${MAX_VALUE_DESCRIPTION} characters`, () => {
    assert.equal(describeValue('x'.repeat(50_000)).text, `${'x'.repeat(MAX_VALUE_DESCRIPTION)}…`);
  });
});

describe('ThrownValueError carries the value and is raised at the site it is given', () => {
  const site: StackFrame = { function: 'GET /boom', file: '/srv/app/routes.ts', line: 12, column: 3 };

  it('says what was thrown', () => {
    assert.equal(new ThrownValueError('boom', site).message, 'Non-error thrown: the string "boom"');
    assert.equal(new ThrownValueError(undefined, site).message, 'Non-error thrown: undefined');
    assert.equal(new ThrownValueError({ code: 42 }, site).message, 'Non-error thrown: an object { code: 42 }');
  });
  it('has the site as its one frame', () => {
    assert.deepEqual(framesOf(new ThrownValueError('boom', site)), [site]);
  });
  it('is what describeError makes of a value thrown elsewhere, even one that cannot become a string', () => {
    const described = describeError(Object.create(null));
    assert.equal(described.status, 500);
    assert.equal(described.className, 'ThrownValueError');
    assert.equal(described.message, 'Non-error thrown: an object [Object: null prototype] {}');
  });
});
