// Small exact statistics over sample arrays (the bench keeps every sample; counts are modest).

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  // Nearest-rank on a sorted copy: p in [0, 100].
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}


export function median(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return NaN;
  const s = [...finite].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** (max − min) / median, as a fraction: how much repeated runs disagree. */
export function spread(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length < 2) return 0;
  const m = median(finite);
  return m === 0 ? 0 : (Math.max(...finite) - Math.min(...finite)) / Math.abs(m);
}

export interface Summary {
  count: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(values: number[]): Summary {
  const s = [...values].sort((a, b) => a - b);
  const sum = s.reduce((a, b) => a + b, 0);
  return {
    count: s.length,
    min: s.length ? s[0]! : NaN,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s.length ? s[s.length - 1]! : NaN,
    mean: s.length ? sum / s.length : NaN,
  };
}
