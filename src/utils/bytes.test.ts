/** Byte counts read the same everywhere: whole bytes spelled out, larger sizes in binary units with one decimal at most. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatBytes } from './bytes.js';

describe('a byte count reads in one style everywhere', () => {
  it('spells out whole bytes below 1 KiB', () => {
    assert.deepEqual([formatBytes(0), formatBytes(1), formatBytes(1023)], ['0 bytes', '1 byte', '1023 bytes']);
  });

  it('uses KiB, MiB and GiB with one decimal, left out when it is zero', () => {
    assert.deepEqual(
      [
        formatBytes(1024),
        formatBytes(1536),
        formatBytes(64 * 1024 ** 2),
        formatBytes(1024 ** 2 + 1),
        formatBytes(3 * 1024 ** 3),
      ],
      ['1 KiB', '1.5 KiB', '64 MiB', '1 MiB', '3 GiB'],
    );
  });

  it('keeps the sign of a difference, and says n/a for an unknown size', () => {
    assert.deepEqual([formatBytes(-2048), formatBytes(null), formatBytes(undefined)], ['-2 KiB', 'n/a', 'n/a']);
  });
});
