// Budget periods in UTC: a calendar day, an ISO week (from Monday), a calendar month, or the whole
// life of the key. Each period has its own counter (the key suffix) so a new period starts at zero
// without any reset job; the old counter expires by itself a little after its period ends.
import type { BudgetPeriod } from '../config/types.js';

export interface PeriodWindow {
  /** Counter key suffix, unique per period: `d2026-11-25`, `w2026-11-23` (the Monday), `m2026-11`, `total`. */
  suffix: string;
  startMs: number;
  /** When the next period starts; undefined for `total` (never). */
  resetMs: number | undefined;
  /** How long the counter must live (the rest of the period plus a margin for late answers). */
  ttlMs: number;
}

const DAY_MS = 86_400_000;
const GRACE_MS = 3_600_000;
/** `total` counters: effectively forever, but a finite TTL every backend accepts. */
const TOTAL_TTL_MS = 3650 * DAY_MS;

/** The last window computed per period: every request asks 2–4 times, and it changes once a day at most. */
const lastWindow = new Map<BudgetPeriod, PeriodWindow>();

export function periodWindow(period: BudgetPeriod, nowMs: number): PeriodWindow {
  const last = lastWindow.get(period);
  if (last !== undefined && last.resetMs !== undefined && nowMs >= last.startMs && nowMs < last.resetMs) {
    return { suffix: last.suffix, startMs: last.startMs, resetMs: last.resetMs, ttlMs: last.resetMs - nowMs + GRACE_MS };
  }
  const window = computeWindow(period, nowMs);
  lastWindow.set(period, window);
  return window;
}

function computeWindow(period: BudgetPeriod, nowMs: number): PeriodWindow {
  const now = new Date(nowMs);
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  let start: number;
  let reset: number;
  let suffix: string;
  switch (period) {
    case 'day':
      start = Date.UTC(y, m, d);
      reset = start + DAY_MS;
      suffix = 'd' + isoDate(start);
      break;
    case 'week': {
      // getUTCDay: Sunday = 0; ISO weeks start on Monday.
      const sinceMonday = (now.getUTCDay() + 6) % 7;
      start = Date.UTC(y, m, d - sinceMonday);
      reset = start + 7 * DAY_MS;
      suffix = 'w' + isoDate(start);
      break;
    }
    case 'month':
      start = Date.UTC(y, m, 1);
      reset = Date.UTC(y, m + 1, 1);
      suffix = 'm' + isoDate(start).slice(0, 7);
      break;
    case 'total':
      return { suffix: 'total', startMs: 0, resetMs: undefined, ttlMs: TOTAL_TTL_MS };
    default: {
      const never: never = period;
      throw new Error(`unknown budget period ${String(never)}`);
    }
  }
  return { suffix, startMs: start, resetMs: reset, ttlMs: reset - nowMs + GRACE_MS };
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
