import { describe, expect, it } from 'vitest';
import { periodWindow } from '../../../src/access/budget-period.js';

const at = (iso: string) => Date.parse(iso);

describe('budget periods (UTC)', () => {
  it('day: the calendar day, resetting at the next midnight', () => {
    const w = periodWindow('day', at('2026-11-25T23:59:59.999Z'));
    expect(w).toMatchObject({ suffix: 'd2026-11-25', startMs: at('2026-11-25T00:00:00Z'), resetMs: at('2026-11-26T00:00:00Z') });
    expect(w.ttlMs).toBeGreaterThan(1);
    expect(periodWindow('day', at('2026-11-26T00:00:00Z')).suffix).toBe('d2026-11-26');
  });

  it('week: ISO weeks start on Monday (a Sunday belongs to the week before)', () => {
    expect(periodWindow('week', at('2026-11-25T12:00:00Z'))).toMatchObject({ suffix: 'w2026-11-23', resetMs: at('2026-11-30T00:00:00Z') });
    expect(periodWindow('week', at('2026-11-29T23:00:00Z')).suffix).toBe('w2026-11-23');
    expect(periodWindow('week', at('2026-11-30T00:00:00Z')).suffix).toBe('w2026-11-30');
    // Across a year boundary: Thursday 2027-01-01 is in the week of Monday 2026-12-28.
    expect(periodWindow('week', at('2027-01-01T08:00:00Z'))).toMatchObject({ suffix: 'w2026-12-28', resetMs: at('2027-01-04T00:00:00Z') });
  });

  it('month: the calendar month, December rolling into January', () => {
    expect(periodWindow('month', at('2026-12-31T23:00:00Z'))).toMatchObject({ suffix: 'm2026-12', startMs: at('2026-12-01T00:00:00Z'), resetMs: at('2027-01-01T00:00:00Z') });
    expect(periodWindow('month', at('2027-02-28T10:00:00Z')).resetMs).toBe(at('2027-03-01T00:00:00Z'));
  });

  it('total: one counter that never resets', () => {
    const w = periodWindow('total', at('2026-11-25T00:00:00Z'));
    expect(w.suffix).toBe('total');
    expect(w.resetMs).toBeUndefined();
    expect(w.ttlMs).toBeGreaterThan(365 * 86_400_000);
  });

  it('keeps a counter alive until after its period ends', () => {
    const now = at('2026-11-25T10:00:00Z');
    const w = periodWindow('month', now);
    expect(now + w.ttlMs).toBeGreaterThan(w.resetMs!);
  });
});

describe('periodWindow reuse', () => {
  it('gives the same answer from its remembered window as from a fresh computation, across period ends and a clock going back', () => {
    const end = Date.UTC(2026, 10, 30, 23, 59, 59, 500);
    const times = [end - 5_000, end, end + 1_000, end + 2_000, end - 60_000, Date.UTC(2026, 11, 7, 12), Date.UTC(2026, 11, 6, 12)];
    for (const period of ['day', 'week', 'month'] as const) {
      for (const t of times) {
        const w = periodWindow(period, t);
        // The window holds `t`, and its TTL runs from `t`: nothing of an earlier call leaks in.
        expect(t).toBeGreaterThanOrEqual(w.startMs);
        expect(t).toBeLessThan(w.resetMs!);
        expect(w.ttlMs).toBe(w.resetMs! - t + 3_600_000);
      }
    }
    expect(periodWindow('month', end).suffix).toBe('m2026-11');
    expect(periodWindow('month', end + 1_000).suffix).toBe('m2026-12');
    expect(periodWindow('month', end).suffix).toBe('m2026-11');
    expect(periodWindow('day', Date.UTC(2026, 11, 7, 12)).suffix).toBe('d2026-12-07');
    expect(periodWindow('day', Date.UTC(2026, 11, 6, 12)).suffix).toBe('d2026-12-06');
  });
});
