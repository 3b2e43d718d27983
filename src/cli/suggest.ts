/**
 * "Did you mean": the known words closest to a mistyped one, by edit distance, or those
 * it begins (`--status` for `--status-code`).
 */
import { editDistance } from '../utils/edit-distance.js';

/** The candidates worth suggesting for `typed`, best first; none when nothing is close. */
export function closestWords(typed: string, candidates: readonly string[]): string[] {
  // A third of the word may be wrong, at least one letter and at most three.
  const allowed = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  const scored = candidates
    .map((candidate) => ({
      candidate,
      distance: candidate.startsWith(typed) && typed.length >= 3 ? 0 : editDistance(typed, candidate, allowed),
    }))
    .filter(({ distance }) => distance <= allowed)
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
