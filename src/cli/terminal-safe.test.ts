import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { terminalSafe } from './terminal-safe.js';

describe('terminalSafe shows what would drive the terminal as escapes', () => {
  it('escapes line breaks and tabs by name, so a value cannot forge a line', () => {
    assert.equal(terminalSafe('paid\n[fake] line\r\tend'), 'paid\\n[fake] line\\r\\tend');
  });

  it('escapes the other C0 controls, DEL and the C1 controls by code', () => {
    assert.equal(
      terminalSafe('\u0000\u0007\u001b[31m\u007f\u0085\u009b'),
      '\\u0000\\u0007\\u001b[31m\\u007f\\u0085\\u009b',
    );
  });

  it('escapes every bidi control and the Unicode line separators', () => {
    const controls = '\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029';
    assert.equal(
      terminalSafe(controls),
      [...controls].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    );
  });

  it('leaves printable text as it is, accents, emoji and right-to-left letters included', () => {
    const text = 'GET /caf\u00e9?q=\u05e9\u05dc\u05d5\u05dd \u{1f600} C:\\path "quoted" \u00a0';
    assert.equal(terminalSafe(text), text);
  });
});
