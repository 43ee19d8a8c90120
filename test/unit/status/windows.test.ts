// The status page's windows against brute force on random data: percentiles from the log-bucket
// histogram within its stated error, and window sums and sparklines from the slot rings equal to
// counting the raw events.
import { describe, expect, it } from 'vitest';
import { bucketOf, HISTOGRAM_BUCKETS, quantile } from '../../../src/status/latency-histogram.js';
import { SlotRing } from '../../../src/status/slot-ring.js';

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function exactQuantile(sorted: number[], q: number): number {
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

describe('latency histogram', () => {
  it('buckets grow monotonically and cover 0 ms to hours', () => {
    let prev = 0;
    for (let ms = 0; ms < 3_600_000; ms = ms * 1.1 + 0.3) {
      const b = bucketOf(ms);
      expect(b).toBeGreaterThanOrEqual(prev);
      expect(b).toBeLessThan(HISTOGRAM_BUCKETS);
      prev = b;
    }
    expect(bucketOf(0.2)).toBe(0);
    expect(bucketOf(Number.NaN)).toBe(0);
    expect(bucketOf(1e12)).toBe(HISTOGRAM_BUCKETS - 1);
  });

  it('p50 and p95 agree with the exact nearest-rank values within ±12 % (±1 ms below 1 ms)', () => {
    const random = rng(23);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(random() * 2000);
      // Log-normal-ish latencies from sub-millisecond to minutes, with a slow tail.
      const scale = Math.exp(random() * 9);
      const values = Array.from({ length: n }, () => scale * Math.exp((random() - 0.5) * 4) * (random() < 0.05 ? 20 : 1));
      const counts = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
      for (const v of values) counts[bucketOf(v)]++;
      const sorted = [...values].sort((a, b) => a - b);
      for (const q of [0.5, 0.95, 0.99]) {
        const exact = exactQuantile(sorted, q);
        const est = quantile(counts, q)!;
        if (exact < 1) expect(Math.abs(est - exact)).toBeLessThanOrEqual(1);
        else expect(Math.abs(est - exact) / exact).toBeLessThanOrEqual(0.12);
      }
    }
  });

  it('no observations: no percentile', () => {
    expect(quantile(new Array<number>(HISTOGRAM_BUCKETS).fill(0), 0.5)).toBeNull();
  });
});

describe('slot ring', () => {
  it('window sums and rates equal counting the raw events, whatever the wrap-around', () => {
    const random = rng(7);
    for (let trial = 0; trial < 20; trial++) {
      const ring = new SlotRing(1000, 900, 2);
      const start = 1_700_000_000_000 + Math.floor(random() * 1e9);
      const events: { t: number; err: boolean }[] = [];
      let t = start;
      // 40 minutes of bursty traffic: more than two trips round the 15-minute ring.
      const end = start + 40 * 60_000;
      while (t < end) {
        t += random() < 0.1 ? random() * 20_000 : random() * 300;
        const err = random() < 0.2;
        events.push({ t, err });
        const row = ring.rowAt(t);
        ring.data[row]++;
        if (err) ring.data[row + 1]++;
        if (random() < 0.01) {
          // Read at random moments too: reads must not disturb the counts.
          for (const s of [60, 300, 900]) {
            const out = [0, 0];
            ring.sumInto(t, s, out);
            const from = (Math.floor(t / 1000) - s + 1) * 1000;
            const inWindow = events.filter((e) => e.t >= from && e.t <= t);
            expect(out).toEqual([inWindow.length, inWindow.filter((e) => e.err).length]);
          }
        }
      }
      const now = t + random() * 120_000; // read a little later: the window slides past old slots
      for (const s of [1, 60, 300, 900]) {
        const out = [0, 0];
        ring.sumInto(now, s, out);
        const from = (Math.floor(now / 1000) - s + 1) * 1000;
        const inWindow = events.filter((e) => e.t >= from && e.t <= now);
        expect(out).toEqual([inWindow.length, inWindow.filter((e) => e.err).length]);
      }
      const series = ring.series(now, 0, 90, 10);
      const nowSlot = Math.floor(now / 1000);
      const expected = new Array<number>(90).fill(0);
      for (const e of events) {
        const age = nowSlot - Math.floor(e.t / 1000);
        if (age >= 0 && age < 900) expected[89 - Math.floor(age / 10)]++;
      }
      expect(series).toEqual(expected);
    }
  });
});
