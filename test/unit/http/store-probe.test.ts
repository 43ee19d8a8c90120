// /readyz's view of the state store: one ping at most per second whatever the probe rate, answers from the
// last result while a new ping runs (until it has been pending for its bound: then unreachable), and
// only the very first probe waits for its ping, at most that bound.
import { describe, expect, it } from 'vitest';
import { StoreProbe } from '../../../src/http/store-probe.js';
import type { StateStore } from '../../../src/state/types.js';

function pingStore() {
  const calls: { resolve: () => void; reject: (e: Error) => void }[] = [];
  const store = { ping: () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject })) } as unknown as StateStore;
  return { store, calls };
}

describe('StoreProbe', () => {
  it('pings at most once a second, serves the last result meanwhile, and reports a failure without its details', async () => {
    const { store, calls } = pingStore();
    const probe = new StoreProbe(store, 1500);
    const first = probe.check(0);
    expect(first).toBeInstanceOf(Promise);
    expect(probe.check(0)).toBe(first); // one ping in flight, shared
    calls[0]!.resolve();
    expect(await first).toEqual({ reachable: true });
    expect(probe.check(Date.now() + 500)).toEqual({ reachable: true });
    expect(calls).toHaveLength(1);

    // Stale: a new ping starts, the probe answers at once from the last result.
    expect(probe.check(Date.now() + 1500)).toEqual({ reachable: true });
    expect(calls).toHaveLength(2);
    calls[1]!.reject(new Error('state store unavailable (redis, ping): connect ECONNREFUSED'));
    await new Promise((r) => setTimeout(r, 0));
    // Only whether: the probe needs no key, so the store's address stays out of its answer.
    expect(probe.check(Date.now() + 100)).toEqual({ reachable: false });
  });

  it('a ping still pending after its bound counts as unreachable; the first probe waits no longer than that', async () => {
    const { store, calls } = pingStore();
    const probe = new StoreProbe(store, 100);
    const t0 = Date.now();
    expect(await probe.check()).toEqual({ reachable: false });
    expect(Date.now() - t0).toBeLessThan(1000);
    calls[0]!.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(probe.check()).toEqual({ reachable: true });
    // Stale, and the next ping hangs: the last result serves until the bound, then unreachable.
    const later = Date.now() + 1500;
    expect(probe.check(later)).toEqual({ reachable: true });
    expect(calls).toHaveLength(2);
    expect(probe.check(later + 50)).toEqual({ reachable: true });
    expect(probe.check(later + 100)).toEqual({ reachable: false });
    expect(calls).toHaveLength(2);
  });
});
