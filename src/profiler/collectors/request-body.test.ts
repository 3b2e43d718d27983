import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { Redactor } from '../redaction/redact.js';
import { bodyView, MAX_BODY_ENTRIES, uploadedFilesView } from './request-body.js';

const redactor = new Redactor();

describe('the parsed body is kept redacted and bounded, by its kind', () => {
  it('names the kind from the Content-Type and redacts credential-like members at any depth', () => {
    assert.deepEqual(
      bodyView(
        { user: 'ann', auth: { password: 'x' }, list: [{ apiKey: 'k' }] },
        'application/json; charset=utf-8',
        redactor,
      ),
      {
        type: 'json',
        value: { user: 'ann', auth: '[redacted]', list: [{ apiKey: '[redacted]' }] },
      },
    );
    const form = Object.assign(Object.create(null) as Record<string, unknown>, { a: '1', token: 't' });
    assert.deepEqual(bodyView(form, 'application/x-www-form-urlencoded', redactor), {
      type: 'form',
      value: { a: '1', token: '[redacted]' },
    });
    assert.deepEqual(bodyView('plain words', 'text/plain', redactor), { type: 'text', value: 'plain words' });
    assert.deepEqual(bodyView({ title: 'x' }, 'multipart/form-data; boundary=b', redactor), {
      type: 'multipart',
      value: { title: 'x' },
    });
    assert.deepEqual(bodyView({ a: 1 }, 'application/vnd.api+json', redactor), { type: 'json', value: { a: 1 } });
  });

  it('keeps no body, and never a stream or bytes', () => {
    assert.equal(bodyView(undefined, 'application/json', redactor), null);
    assert.equal(bodyView(Buffer.from('raw'), 'application/octet-stream', redactor), null);
    assert.equal(bodyView(Readable.from(['x']), 'application/octet-stream', redactor), null);
  });

  it('cuts long strings as the report does, and keeps at most MAX_BODY_ENTRIES entries', () => {
    const { value } = bodyView({ essay: 'w'.repeat(9000) }, 'application/json', redactor)!;
    assert.match((value as { essay: string }).essay, /^w{8192}…\[cut 808 characters\]$/);
    const big = Array.from({ length: MAX_BODY_ENTRIES + 50 }, (_, i) => i);
    const kept = bodyView(big, 'application/json', redactor)!.value as unknown[];
    assert.equal(kept.length, MAX_BODY_ENTRIES + 1);
    assert.equal(kept.at(-1), '…[50 more entries]');
    const wide = Object.fromEntries(Array.from({ length: MAX_BODY_ENTRIES + 3 }, (_, i) => [`k${i}`, i]));
    const members = bodyView(wide, 'application/json', redactor)!.value as Record<string, unknown>;
    assert.equal(members['…'], '[3 more entries]');
  });

  it('reads the values of the entries it keeps only, however many a body has', () => {
    const form: Record<string, string> = Object.create(null);
    for (let i = 0; i < 100_000; i++) form[`token${i}`] = `v${i}`;
    let read = 0;
    const counted = new Proxy(form, { get: (target, key) => (read++, Reflect.get(target, key)) });
    const { value } = bodyView(counted, 'application/x-www-form-urlencoded', redactor)!;
    const members = value as Record<string, unknown>;
    assert.deepEqual([members.token0, members[`token${MAX_BODY_ENTRIES - 1}`]], ['v0', `v${MAX_BODY_ENTRIES - 1}`]);
    assert.equal(members['…'], `[${100_000 - MAX_BODY_ENTRIES} more entries]`);
    assert.ok(read <= MAX_BODY_ENTRIES + 10, `${read} values read`);
  });

  it('stops at a depth of 32 levels', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    let value = bodyView(deep, 'application/json', redactor)!.value as Record<string, unknown>;
    let levels = 0;
    while (typeof value === 'object') {
      value = value.d as Record<string, unknown>;
      levels++;
    }
    assert.equal(levels, 32);
    assert.equal(value, '…[deeper levels left out]');
  });
});

describe('uploaded files are listed by name, field, type and size, never their path or contents', () => {
  it('keeps the four fields only', () => {
    assert.deepEqual(
      uploadedFilesView([{ field: 'doc', filename: 'a.txt', mimetype: 'text/plain', size: 3, path: '/tmp/x/a' }]),
      [{ field: 'doc', filename: 'a.txt', type: 'text/plain', size: 3 }],
    );
    assert.deepEqual(uploadedFilesView(null), []);
  });
});

describe('a field named __proto__ is kept as a field', () => {
  it('neither changes the copy’s prototype nor disappears', () => {
    const form = Object.create(null) as Record<string, unknown>;
    Object.defineProperty(form, '__proto__', { value: 'x', enumerable: true });
    const { value } = bodyView(form, 'application/x-www-form-urlencoded', redactor)!;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(JSON.stringify(value), '{"__proto__":"x"}');
  });
});
