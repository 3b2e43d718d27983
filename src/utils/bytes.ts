/** How a byte count reads in messages, pages and the command line: one style everywhere. */

const UNITS: ReadonlyArray<[string, number]> = [
  ['GiB', 1024 ** 3],
  ['MiB', 1024 ** 2],
  ['KiB', 1024],
];

/** `1 byte`, `250 bytes`, `1.5 KiB`, `64 MiB`; a negative count (a difference) keeps its sign; `n/a` when unknown. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return 'n/a';
  const sign = bytes < 0 ? '-' : '';
  const size = Math.abs(bytes);
  for (const [unit, scale] of UNITS) {
    if (size >= scale) return `${sign}${Number((size / scale).toFixed(1))} ${unit}`;
  }
  return `${sign}${size} byte${size === 1 ? '' : 's'}`;
}
