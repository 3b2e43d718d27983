import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redactor } from '../redaction/redact.js';
import {
  boundedJson,
  boundedSections,
  boundedTraceJson,
  cutString,
  MAX_SECTIONS_BYTES,
  MAX_STRING_LENGTH,
} from './report-bounds.js';

const redactor = new Redactor();
const bytes = (json: string) => Buffer.byteLength(json);

describe('a string is cut at 8,192 characters with a marker saying how much was cut', () => {
  it('keeps short strings and cuts long ones', () => {
    assert.equal(cutString('short'), 'short');
    assert.equal(cutString('a'.repeat(MAX_STRING_LENGTH)), 'a'.repeat(MAX_STRING_LENGTH));
    assert.equal(cutString('a'.repeat(60_193)), `${'a'.repeat(8192)}…[cut 52,001 characters]`);
    assert.equal(cutString('abcdef', 4), 'abcd…[cut 2 characters]');
  });

  it('never splits a surrogate pair', () => {
    const cut = cutString(`${'a'.repeat(8191)}😀😀`);
    assert.equal(cut, `${'a'.repeat(8191)}…[cut 4 characters]`);
  });
});

describe('boundedJson redacts, then cuts every string', () => {
  it('costs nothing but JSON for a short value', () => {
    assert.equal(boundedJson({ a: 1, url: '/x?token=abc' }, redactor), '{"a":1,"url":"/x?token=[redacted]"}');
  });

  it('cuts each long string, redacted first, wherever it is', () => {
    const value = { url: `/x?token=${'s'.repeat(10_000)}&q=1`, deep: [{ log: 'b'.repeat(9000) }], n: 2 };
    const parsed = JSON.parse(boundedJson(value, redactor));
    assert.equal(parsed.url, '/x?token=[redacted]&q=1');
    assert.equal(parsed.deep[0].log, `${'b'.repeat(8192)}…[cut 808 characters]`);
    assert.equal(parsed.n, 2);
  });

  it('cuts a string that redaction lengthened', () => {
    const many = Array.from({ length: 1000 }, () => 'token=x').join('&'); // 7,999 characters, 16,999 once redacted
    const parsed = JSON.parse(boundedJson({ many }, redactor));
    assert.ok(parsed.many.length <= MAX_STRING_LENGTH + 40);
    assert.match(parsed.many, /^token=\[redacted\]&token=\[redacted\]/);
  });

  it('throws what JSON.stringify throws', () => {
    assert.throws(() => boundedJson({ big: 1n }, redactor), TypeError);
  });
});

describe('boundedSections keeps a report under 64 KiB of JSON', () => {
  it('encodes a small report as one object, redacted', () => {
    assert.equal(
      boundedSections({ request: { url: '/?sig=1' }, empty: undefined, n: 1 }, redactor),
      '{"request":{"url":"/?sig=[redacted]"},"n":1}',
    );
  });

  it('shrinks the largest sections first and keeps the small ones whole', () => {
    const logs = { lines: Array.from({ length: 200 }, (_, i) => ({ message: `line ${i} `.padEnd(9000, 'x') })) };
    const json = boundedSections({ request: { url: '/small' }, logs }, redactor);
    assert.ok(bytes(json) <= MAX_SECTIONS_BYTES, `${bytes(json)} bytes`);
    const parsed = JSON.parse(json);
    assert.deepEqual(parsed.request, { url: '/small' });
    assert.equal(parsed.logs.lines.length, 200, 'every line is kept, shorter');
    assert.match(parsed.logs.lines[0].message, /^line 0 x+…\[cut 8,93\d characters\]$/);
  });

  it('leaves out a section that cannot fit, saying how large it was', () => {
    const huge = { items: Array.from({ length: 20_000 }, (_, i) => i) };
    const parsed = JSON.parse(boundedSections({ request: { url: '/small' }, huge }, redactor));
    assert.deepEqual(parsed.request, { url: '/small' });
    assert.match(
      parsed.huge.collectorError,
      /^the section was left out: its JSON took 1\d\d,\d{3} bytes, and a report keeps at most 65,536$/,
    );
  });

  it('counts bytes, not characters', () => {
    const wide = { text: Array.from({ length: 40 }, () => 'é'.repeat(1000)) }; // 40,000 characters, 80,000 bytes
    const json = boundedSections({ wide }, redactor);
    assert.ok(bytes(json) <= MAX_SECTIONS_BYTES, `${bytes(json)} bytes`);
  });

  it('redacts a report once, however long its strings, before cutting them', () => {
    let redacted = 0;
    const counting = new (class extends Redactor {
      override json(json: string): string {
        redacted += json.length;
        return super.json(json);
      }
      override text(text: string): string {
        redacted += text.length;
        return super.text(text);
      }
    })();
    const form = Array.from({ length: 29_000 }, (_, i) => `token${i}=v${i}`).join('&');
    const logs = { lines: [{ message: `password=hunter2&${form}` }, { message: form }] };
    const parsed = JSON.parse(boundedSections({ request: { url: '/?sig=1' }, logs }, counting));
    assert.equal(parsed.request.url, '/?sig=[redacted]');
    assert.match(parsed.logs.lines[0].message, /^password=\[redacted\]&token0=v0&.*…\[cut [\d,]+ characters\]$/);
    const whole = JSON.stringify({ request: { url: '/?sig=1' }, logs }).length;
    assert.ok(redacted <= whole * 1.01, `${redacted} characters redacted for a report of ${whole}`);
  });

  it('costs a section that cannot be serialized its own section only', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const parsed = JSON.parse(boundedSections({ ok: { a: 1 }, cyclic, big: { n: 1n } }, redactor));
    assert.deepEqual(parsed.ok, { a: 1 });
    assert.match(parsed.cyclic.collectorError, /^the section cannot be serialized: /);
    assert.match(parsed.big.collectorError, /^the section cannot be serialized: /);
  });
});

describe('boundedTraceJson keeps a trace under 64 KiB', () => {
  it('keeps an ordinary trace as it is', () => {
    const trace = [{ file: '/srv/a.ts', line: 1, excerpt: [{ line: 1, code: 'throw x' }] }];
    assert.equal(boundedTraceJson(trace), JSON.stringify(trace));
  });

  it('cuts long excerpts, then leaves out the outermost frames', () => {
    const frame = (i: number) => ({
      file: `/srv/f${i}.ts`,
      line: i,
      excerpt: Array.from({ length: 11 }, (_, l) => ({ line: l, code: 'c'.repeat(20_000) })),
    });
    const json = boundedTraceJson(Array.from({ length: 200 }, (_, i) => frame(i)));
    assert.ok(bytes(json) <= MAX_SECTIONS_BYTES, `${bytes(json)} bytes`);
    const frames = JSON.parse(json) as Array<{ file: string }>;
    assert.ok(frames.length > 0 && frames.length < 200);
    assert.equal(frames[0]!.file, '/srv/f0.ts', 'the innermost frames are kept');
  });
});
