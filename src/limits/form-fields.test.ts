/** Form fields: repeated names become lists in order, built in linear time. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addField, parseForm, type FormFields } from './form-fields.js';

describe('parseForm', () => {
  it('keeps a name given once as a string and decodes it', () => {
    assert.deepEqual({ ...parseForm('a=1&b=x%20y&c=+z+') }, { a: '1', b: 'x y', c: ' z ' });
  });

  it('makes a list of a repeated name, values in the order sent', () => {
    assert.deepEqual({ ...parseForm('b=1&a=x&b=2&b=&b=3') }, { b: ['1', '2', '', '3'], a: 'x' });
  });

  it('reads 200,000 repeats of one name, and of names in turns, into lists of the full length', () => {
    assert.equal((parseForm('a=&'.repeat(200_000)).a as string[]).length, 200_000);
    const turns = parseForm('a=1&b=2&'.repeat(100_000));
    assert.equal((turns.a as string[]).length, 100_000);
    assert.equal((turns.b as string[]).length, 100_000);
  });

  it('takes names such as __proto__ and constructor as ordinary fields', () => {
    const fields = parseForm('__proto__=1&constructor=2&__proto__=3');
    assert.deepEqual(fields.__proto__, ['1', '3']);
    assert.equal(fields.constructor, '2');
    assert.equal(Object.getPrototypeOf(fields), null);
  });
});

describe('addField', () => {
  it('appends to the list already there rather than replacing it', () => {
    const fields: FormFields = Object.create(null);
    addField(fields, 'f', '1');
    addField(fields, 'f', '2');
    const list = fields.f;
    addField(fields, 'f', '3');
    assert.equal(fields.f, list);
    assert.deepEqual(fields.f, ['1', '2', '3']);
  });
});
