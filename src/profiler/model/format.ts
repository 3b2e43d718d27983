/** How times, durations and sizes read in the profiler's pages and on the command line. */

// Sizes read as everywhere else in the project.
export { formatBytes } from '../../utils/bytes.js';

/** `2026-01-02 10:30:15.123 UTC`: reports are shown, and searched, in UTC. */
export function formatTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return 'n/a';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

/** `2 days`, `36 hours`, `90 seconds`: the largest unit that divides the duration. */
export function formatDuration(ms: number): string {
  const units: Array<[string, number]> = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1000],
  ];
  for (const [unit, size] of units) {
    if (ms % size === 0) {
      const n = ms / size;
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return `${ms} ms`;
}
