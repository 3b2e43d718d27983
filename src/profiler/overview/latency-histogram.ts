/**
 * Durations counted in buckets of a fixed logarithmic scale, so that histograms of minutes,
 * workers and instances add up by bucket, and p50, p95 and p99 come from the sum. A bucket
 * spans 10 % of its value: a quantile is known to within that.
 */

/** The scale: bucket i holds durations in (FLOOR_MS * GROWTH^(i-1), FLOOR_MS * GROWTH^i]. */
const GROWTH = 1.1;
const FLOOR_MS = 0.01;
const LOG_GROWTH = Math.log(GROWTH);
/** Past about 26 minutes every duration is in the last bucket. */
const LAST_BUCKET = 250;

/** Counts by bucket index; absent buckets hold none. Plain data: it is stored as JSON. */
export type LatencyHistogram = Record<number, number>;

export function bucketOf(ms: number): number {
  if (!(ms > FLOOR_MS)) return 0;
  return Math.min(LAST_BUCKET, Math.ceil(Math.log(ms / FLOOR_MS) / LOG_GROWTH - 1e-9));
}

/** The upper bound of bucket `index`, in ms: what a quantile that falls in it reads. */
export function bucketBound(index: number): number {
  return FLOOR_MS * GROWTH ** index;
}

export function countDuration(histogram: LatencyHistogram, ms: number): void {
  const bucket = bucketOf(ms);
  histogram[bucket] = (histogram[bucket] ?? 0) + 1;
}

/** Adds `from` into `into`, bucket by bucket; buckets that are not valid indexes are left out. */
export function addHistogram(into: LatencyHistogram, from: LatencyHistogram): void {
  for (const [key, count] of Object.entries(from)) {
    const bucket = Number(key);
    if (!Number.isInteger(bucket) || bucket < 0 || bucket > LAST_BUCKET) continue;
    if (!Number.isSafeInteger(count) || count <= 0) continue;
    into[bucket] = (into[bucket] ?? 0) + count;
  }
}

/** The duration under which a share `q` (0 to 1) of the counted ones fall, or null when none were counted. */
export function quantile(histogram: LatencyHistogram, q: number): number | null {
  const buckets = Object.keys(histogram)
    .map(Number)
    .sort((a, b) => a - b);
  let total = 0;
  for (const bucket of buckets) total += histogram[bucket]!;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of buckets) {
    seen += histogram[bucket]!;
    if (seen >= rank) return round(bucketBound(bucket));
  }
  return round(bucketBound(buckets.at(-1)!));
}

function round(ms: number): number {
  return ms < 10 ? Math.round(ms * 100) / 100 : Math.round(ms * 10) / 10;
}
