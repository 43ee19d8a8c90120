// The limited requests the state micro-benchmarks drive: the caller of bench/access-overhead.ts (rpm,
// tpm, concurrency and a monthly budget, all far above the load), admitted and settled through a store
// with a fixed number in flight.
import { admissionPlan, settlementCharges } from '../../src/access/admission-plan.js';
import type { Caller } from '../../src/access/caller.js';
import type { StateStore } from '../../src/state/types.js';

const caller = {
  name: 'bench',
  anonymous: false,
  key: { limits: { rpm: 100_000_000, tpm: 1_000_000_000_000, concurrency: 1_000_000 }, budget: { usd: 1_000_000_000, period: 'month' } },
} as unknown as Caller;

async function oneRequest(store: StateStore): Promise<void> {
  const now = Date.now();
  const plan = admissionPlan(caller, now, 30 * 60_000);
  const r = await store.admit(plan.checks);
  if (!r.ok) throw new Error('refused');
  // The answer comes back in a later event-loop turn, as from a real upstream (lmdb-js, for one, does
  // per-turn work that a loop of bare promises would never trigger).
  await new Promise(setImmediate);
  await store.settle(settlementCharges(caller, { tokens: 120, costMicros: 1234, modelAlias: 'm' }, now), r.leases);
}

/** `n` admit + settle pairs through `store`, `inflight` at a time. */
export async function driveAdmissions(store: StateStore, n: number, inflight: number): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started < n) {
      started++;
      await oneRequest(store);
    }
  };
  await Promise.all(Array.from({ length: inflight }, lane));
}
