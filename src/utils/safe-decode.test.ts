/** Percent-decoding that never throws: what cannot be decoded is kept as written. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { safeDecode, safeDecodeComponent, safeDecodeUri } from './safe-decode.js';

/** Each reading, with what it makes of text: its escapes decoded, or the text kept when they are malformed. */
const READINGS: ReadonlyArray<[string, (text: string) => string, Record<string, string>]> = [
  [
    'a form component, + as a space',
    safeDecode,
    { 'a%20b+c%3D': 'a b c=', '100%+sure%E0': '100%+sure%E0', plain: 'plain' },
  ],
  ['a component, + kept', safeDecodeComponent, { 'a%20b+c%3D': 'a b+c=', '100%': '100%' }],
  ['a path, its delimiters kept escaped', safeDecodeUri, { '/a%20b/c%2Fd%3F': '/a b/c%2Fd%3F', '/%E0/x': '/%E0/x' }],
];

for (const [reading, decode, cases] of READINGS) {
  it(`decodes ${reading}, or keeps it as written`, () => {
    const decoded = Object.fromEntries(Object.keys(cases).map((text) => [text, decode(text)]));
    assert.deepEqual(decoded, cases);
  });
}
