// A fixed log-bucket histogram of durations in milliseconds: bucket 0 holds [0, 1) ms, bucket i ≥ 1
// holds [G^(i-1), G^i) with G = 1.25, the last one everything above. Counts add up across time slots and
// processes, so percentiles of any window (and of a whole --workers machine) come from one sum. A
// percentile is its bucket's geometric middle: within ±12 % of the exact value (±1 ms below 1 ms).
export const HISTOGRAM_BUCKETS = 72;
const GROWTH = 1.25;
const LOG_GROWTH = Math.log(GROWTH);

/** The bucket of a duration (ms). No allocation: one log. */
export function bucketOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  const i = 1 + Math.floor(Math.log(ms) / LOG_GROWTH);
  return i < HISTOGRAM_BUCKETS ? i : HISTOGRAM_BUCKETS - 1;
}

/** The value a bucket stands for when it holds a percentile. */
export function bucketValue(i: number): number {
  if (i <= 0) return 0.5;
  return Math.pow(GROWTH, i - 0.5);
}

/**
 * The q-quantile (0 < q ≤ 1, nearest rank) of the counts in `counts[offset .. offset + HISTOGRAM_BUCKETS)`,
 * or null when they are all zero.
 */
export function quantile(counts: ArrayLike<number>, q: number, offset = 0): number | null {
  let total = 0;
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) total += counts[offset + i]!;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
    seen += counts[offset + i]!;
    if (seen >= rank) return bucketValue(i);
  }
  return bucketValue(HISTOGRAM_BUCKETS - 1);
}
