import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { Redactor } from '../redaction/redact.js';
import { PREVIEW_CHARS, responsePreview } from './response-preview.js';

const redactor = new Redactor();
const text = (body: unknown, type: string, headers: Record<string, string> = {}) =>
  responsePreview(body, { 'content-type': type, ...headers }, redactor);

describe(`a textual response body is previewed up to ${PREVIEW_CHARS} characters`, () => {
  it('keeps text, HTML, XML, JSON and form bodies as they were sent', () => {
    assert.deepEqual(text('hello', 'text/plain; charset=utf-8'), { kind: 'text', text: 'hello', size: 5 });
    assert.deepEqual(text(Buffer.from('<a>é</a>'), 'application/xml'), { kind: 'text', text: '<a>é</a>', size: 9 });
    assert.deepEqual(text('{"a":1}', 'application/problem+json'), { kind: 'text', text: '{"a":1}', size: 7 });
    assert.equal(text('a=1', 'application/x-www-form-urlencoded').kind, 'text');
  });

  it('cuts a longer body with the report’s marker, in characters for text and bytes for a Buffer', () => {
    assert.deepEqual(text('x'.repeat(PREVIEW_CHARS + 10), 'text/html'), {
      kind: 'text',
      text: `${'x'.repeat(PREVIEW_CHARS)}…[cut 10 characters]`,
      size: PREVIEW_CHARS + 10,
    });
    const bytes = text(Buffer.from('é'.repeat(PREVIEW_CHARS + 1)), 'text/plain');
    assert.equal(bytes.kind === 'text' && bytes.text, `${'é'.repeat(PREVIEW_CHARS)}…[cut 2 bytes]`);
  });

  it('redacts the values of credential-like JSON members, whole or cut, whatever the type says', () => {
    const body = JSON.stringify({
      user: 'ann',
      password: 'hunter2',
      nested: { apiKey: 'k', n: 2 },
      auth: { any: ['x'] },
      pin: 1234,
      count: 7,
    });
    const preview = text(body, 'application/json');
    assert.equal(
      preview.kind === 'text' && preview.text,
      '{"user":"ann","password":"[redacted]","nested":{"apiKey":"[redacted]","n":2},"auth":"[redacted]","pin":"[redacted]","count":7}',
    );
    const cut = text(`{"a":"${'y'.repeat(PREVIEW_CHARS - 22)}","token":"abcdefghijkl"}`, 'application/json');
    assert.ok(cut.kind === 'text' && !cut.text.includes('"abc'), cut.kind === 'text' ? cut.text.slice(-60) : '');
    assert.match(cut.kind === 'text' ? cut.text : '', /"token":"\[redacted\]"…\[cut \d+ characters\]$/);
    // JSON answered as text/plain (issue 26, item 6).
    const plain = text(' {"cvv":"123","card_number":"x"}', 'text/plain');
    assert.equal(plain.kind === 'text' && plain.text, ' {"cvv":"[redacted]","card_number":"[redacted]"}');
  });
});

describe('other bodies say what they are, and are not kept', () => {
  it('binary, streamed, compressed and empty bodies', () => {
    assert.deepEqual(text(Buffer.from([1, 2, 3]), 'image/png'), { kind: 'binary', size: 3 });
    assert.deepEqual(text(Readable.from(['a']), 'text/plain'), { kind: 'streamed', size: null });
    assert.deepEqual(text(Readable.from(['a']), 'text/plain', { 'content-length': '1' }), {
      kind: 'streamed',
      size: 1,
    });
    assert.deepEqual(text(Buffer.from([31, 139]), 'text/plain', { 'content-encoding': 'gzip' }), {
      kind: 'compressed',
      size: 2,
    });
    assert.deepEqual(text(null, 'text/plain'), { kind: 'empty', size: 0 });
    assert.deepEqual(text('', 'application/json'), { kind: 'empty', size: 0 });
    assert.deepEqual(responsePreview('no type', {}, redactor), { kind: 'binary', size: 7 });
    assert.deepEqual(
      responsePreview(
        '<html>error page</html>',
        { 'content-type': 'text/html', 'content-length': '23' },
        redactor,
        true,
      ),
      { kind: 'error-page', size: 23 },
    );
  });
});
