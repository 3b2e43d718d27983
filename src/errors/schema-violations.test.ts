import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { schemaViolations, type SentValues } from './schema-violations.js';

const sentBody = (body: unknown): SentValues => ({
  part: (context) => (context === 'body' ? body : undefined),
  redact: (names, shown) => (names.includes('password') ? '[redacted]' : shown),
});

describe("a schema's refusals read from ajv's errors", () => {
  it('names the path, the keyword, the rule and the value sent', () => {
    const validation = [
      { instancePath: '/items/0/price', schemaPath: '#/…/type', keyword: 'type', params: { type: 'integer' } },
    ];
    assert.deepEqual(schemaViolations(validation, 'body', sentBody({ items: [{ price: '12' }] })), [
      { in: 'body', path: '/items/0/price', keyword: 'type', rule: 'type: integer', value: '"12"' },
    ]);
  });

  it('writes the rule of each kind of keyword', () => {
    const rule = (keyword: string, params: object) =>
      schemaViolations([{ instancePath: '', keyword, params }], 'querystring')[0]!.rule;
    assert.equal(rule('minimum', { comparison: '>=', limit: 0 }), 'minimum: 0');
    assert.equal(rule('maxLength', { limit: 5 }), 'maxLength: 5');
    assert.equal(rule('enum', { allowedValues: ['a', 'b'] }), 'enum: ["a","b"]');
    assert.equal(rule('pattern', { pattern: '^\\d+$' }), 'pattern: ^\\d+$');
    assert.equal(rule('format', { format: 'email' }), 'format: email');
    assert.equal(rule('additionalProperties', { additionalProperty: 'x' }), 'additionalProperties: false');
    assert.equal(rule('oneOf', { passingSchemas: null }), 'oneOf');
  });

  it('points at the member a required or an additional property names, escaped', () => {
    const violations = schemaViolations(
      [
        { instancePath: '/a', keyword: 'required', params: { missingProperty: 'b/c' } },
        { instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'extra' } },
      ],
      'body',
      sentBody({ a: {}, extra: 5 }),
    );
    assert.deepEqual(
      violations.map(({ path, value }) => [path, value]),
      [
        ['/a/b~1c', undefined],
        ['/extra', '5'],
      ],
    );
  });

  it('shows a structure by its size, a long string cut, a secret redacted', () => {
    const at = (instancePath: string, body: unknown) =>
      schemaViolations([{ instancePath, keyword: 'type', params: { type: 'x' } }], 'body', sentBody(body))[0]!.value;
    assert.equal(at('/a', { a: [1, 2, 3] }), 'an array of 3 items');
    assert.equal(at('/a', { a: { b: 1 } }), 'an object of 1 members');
    assert.equal(at('/a', { a: 'y'.repeat(5000) })!.length, 201);
    assert.equal(at('/password', { password: 'hunter2' }), '[redacted]');
    assert.equal(at('/missing', {}), undefined);
  });

  it("runs none of the request's getters and keeps to ten refusals", () => {
    const body = Object.defineProperty({}, 'a', {
      enumerable: true,
      get() {
        throw new Error('ran');
      },
    });
    assert.equal(
      schemaViolations([{ instancePath: '/a', keyword: 'type', params: {} }], 'body', sentBody(body))[0]!.value,
      undefined,
    );
    const many = Array.from({ length: 500 }, () => ({ instancePath: '', keyword: 'type', params: { type: 'string' } }));
    assert.equal(schemaViolations(many, 'body').length, 10);
    assert.deepEqual(schemaViolations('not a list', 'body'), []);
  });
});
