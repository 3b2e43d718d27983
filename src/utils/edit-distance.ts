/**
 * Levenshtein distance with a swap of two neighbours counting as one edit, bounded: only
 * the band of cells within `max` of the diagonal is computed, so comparing a long word to
 * a short one costs nothing and a close pair costs its length times the bound.
 *
 * @example
 * ```ts
 * editDistance('product', 'products'); // 1
 * editDistance('a'.repeat(10_000), 'api', 3); // 4: over the bound, found without a pass
 * ```
 */

/** The three rows, reused by every call (the distance runs to its end synchronously): no allocation per comparison. */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)] as const;

/** The distance from `a` to `b`, or `max + 1` as soon as it is known to exceed `max`. */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const over = Math.min(max + 1, Math.max(a.length, b.length) + 1);
  const columns = b.length + 1;
  if (rows[0].length < columns) rows = [new Int32Array(columns), new Int32Array(columns), new Int32Array(columns)];
  // Three rows, the one before last read by swaps; only each row's band is written.
  let [beforeLast, last, current] = rows;
  beforeLast.fill(over, 0, columns);
  current.fill(over, 0, columns);
  for (let j = 0; j < columns; j++) last[j] = j <= max ? j : over;
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - max);
    const to = Math.min(b.length, i + max);
    // The cells beside the band, which the next rows read, stand for "too far".
    current[from - 1] = from === 1 && i <= max ? i : over;
    if (to + 1 < columns) current[to + 1] = over;
    let rowBest = current[from - 1]!;
    for (let j = from; j <= to; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let best = Math.min(last[j]! + 1, current[j - 1]! + 1, last[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1))
        best = Math.min(best, beforeLast[j - 2]! + 1);
      current[j] = Math.min(best, over);
      if (current[j]! < rowBest) rowBest = current[j]!;
    }
    // Every way on passes through this row (a swap's cell is never cheaper than the one it skips).
    if (rowBest > max) return max + 1;
    const reused = beforeLast;
    beforeLast = last;
    last = current;
    current = reused;
  }
  return Math.min(last[b.length]!, max + 1);
}
