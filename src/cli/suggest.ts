/**
 * "Did you mean": the known words closest to a mistyped one, by edit distance, or those
 * it begins (`--status` for `--status-code`).
 */

/** The candidates worth suggesting for `typed`, best first; none when nothing is close. */
export function closestWords(typed: string, candidates: readonly string[]): string[] {
  const scored = candidates
    .map((candidate) => ({
      candidate,
      distance: candidate.startsWith(typed) && typed.length >= 3 ? 0 : editDistance(typed, candidate),
    }))
    // A third of the word may be wrong, at least one letter and at most three.
    .filter(({ distance }) => distance <= Math.min(3, Math.max(1, Math.floor(typed.length / 3))))
    .sort((a, b) => a.distance - b.distance);
  return scored.map(({ candidate }) => candidate);
}

/** ` Did you mean "x"?` or ` Did you mean one of "x", "y"?`, or '' when nothing is close. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const close = closestWords(typed, candidates).slice(0, 3);
  if (close.length === 0) return '';
  const quoted = close.map((word) => `"${word}"`);
  return close.length === 1 ? ` Did you mean ${quoted[0]}?` : ` Did you mean one of ${quoted.join(', ')}?`;
}

/** Levenshtein distance, with a swap of two neighbours counting as one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const distance: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: columns }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < columns; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(distance[i - 1]![j]! + 1, distance[i]![j - 1]! + 1, distance[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, distance[i - 2]![j - 2]! + 1);
      distance[i]![j] = best;
    }
  }
  return distance[a.length]![b.length]!;
}
