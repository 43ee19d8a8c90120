// How long a caller refused for concurrency should wait: until a slot is likely to free, not until the
// oldest lease expires. A lease lives as long as its request could run at most (every attempt's total
// timeout plus the retry budget: about an hour with the defaults) so that a live stream never loses its
// slot, and its expiry is therefore no answer to "when may I try again" (it said `retry-after: 3690`).
// The estimate: how long this process's leases have been held lately (from admission to settle), less
// how long the oldest lease has been held already, within [1 s, 10 s]: a client that comes back
// too early is refused again, at the cost of one admission call; one that waits an hour is failed.
import type { AdmissionCheck, CheckState } from '../state/types.js';

export const MIN_CONCURRENCY_WAIT_MS = 1_000;
export const MAX_CONCURRENCY_WAIT_MS = 10_000;
/** Weight of the newest hold time in the moving average. */
const ALPHA = 0.2;

export class LeaseHoldTimes {
  private averageMs: number | undefined;

  /** A request that held a lease for `ms` gave it back. */
  observe(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) return;
    this.averageMs = this.averageMs === undefined ? ms : this.averageMs + ALPHA * (ms - this.averageMs);
  }

  /** The recent average hold time (undefined before the first lease came back). */
  get typicalMs(): number | undefined {
    return this.averageMs;
  }

  /**
   * When a slot of a full concurrency check is likely to free. `resetMs`: the check's time until its
   * earliest lease expires; `leaseMs`: the lifetime leases of this check are given, so the oldest lease
   * has been held for `leaseMs - resetMs`.
   */
  freeInMs(resetMs: number, leaseMs: number): number {
    const heldMs = Math.max(0, leaseMs - resetMs);
    const left = (this.averageMs ?? 0) - heldMs;
    return Math.min(MAX_CONCURRENCY_WAIT_MS, Math.max(MIN_CONCURRENCY_WAIT_MS, left));
  }
}

/**
 * The wait to announce for a refused admission. `storeWaitMs` is the store's: the slowest refusing
 * check's, where a concurrency check counts its earliest lease expiry. When only concurrency checks
 * refused, their estimate replaces it; when a window or counter refused too, the announced wait is the
 * larger of the estimate and those checks' own reset times (the store's figure cannot be split).
 */
export function refusalWaitMs(checks: readonly AdmissionCheck[], states: readonly CheckState[], storeWaitMs: number, holds: LeaseHoldTimes): number {
  let concurrencyMs = -1;
  let othersMs = -1;
  for (let i = 0; i < checks.length; i++) {
    const check = checks[i]!;
    const state = states[i];
    if (state === undefined) continue;
    if (check.kind === 'concurrency') {
      if (state.used >= check.limit) concurrencyMs = Math.max(concurrencyMs, holds.freeInMs(state.resetMs, check.leaseMs));
    } else if (check.kind === 'window' ? !(state.used < check.limit && state.used + check.cost <= check.limit) : state.used >= check.limit) {
      othersMs = Math.max(othersMs, state.resetMs);
    }
  }
  if (concurrencyMs < 0) return storeWaitMs;
  return Math.max(concurrencyMs, othersMs);
}
