// Concurrency leases under a failing state store (issue 19, item 8): when settling an answer fails
// (a few seconds of Redis or disk trouble), the lease is given back in the background until that
// lands, instead of holding the key's slot until the lease expires (30 minutes before); and a lease
// lives as long as the request can (every attempt at the provider's total_ms, plus retry waits), so a
// stream longer than 30 minutes keeps counting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdmissionCheck, Lease } from '../../../src/state/types.js';
import { StateUnavailableError } from '../../../src/state/types.js';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

const KEY = 'sk-sy-single-slot-0123456789';
const TOTAL_MS = 2 * 60 * 60_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    apiKey: KEY,
    config: (base) => ({
      auth: { keys: [{ name: 'single', key: KEY, limits: { concurrency: 1 } }] },
      providers: {
        'up-messages': { protocol: 'messages', base_url: base, api_key: 'upstream-key-m', retry: { attempts: 2, budget_ms: 5_000 }, timeouts: { total_ms: TOTAL_MS } },
      },
      models: { 'via-messages': { provider: 'up-messages', model: 'claude-upstream-1' } },
    }),
  });
});
afterAll(async () => {
  await h?.close();
});

async function ask(): Promise<number> {
  const res = await fetch(h.url + '/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('concurrency leases and a failing store', () => {
  it('a settle that fails is followed by a background release that retries until it lands', async () => {
    const store = h.gateway.ctx.stateStore;
    const settle = store.settle.bind(store);
    const release = store.release.bind(store);
    let settleFailures = 1;
    let releaseFailures = 2;
    const released: Lease[][] = [];
    store.settle = async (charges, leases) => {
      if (settleFailures-- > 0) throw new StateUnavailableError('settle', 'injected outage');
      return settle(charges, leases);
    };
    store.release = async (leases) => {
      if (releaseFailures-- > 0) throw new StateUnavailableError('release', 'injected outage');
      released.push([...leases]);
      return release(leases);
    };
    try {
      expect(await ask()).toBe(200);
      // Accounting runs after the last byte: wait for the failed settle, then for the retries.
      const until = Date.now() + 5_000;
      while (settleFailures > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(settleFailures).toBe(0);
      await h.gateway.ctx.access.backgroundReleases();
      expect(releaseFailures).toBe(-1);
      expect(released).toHaveLength(1);
      // The slot is free again (before: 429 until the 30-minute lease expired).
      expect(await ask()).toBe(200);
      expect(await ask()).toBe(200);
    } finally {
      store.settle = settle;
      store.release = release;
    }
  }, 20_000);

  it("the lease outlives the longest the request can run: every attempt at the provider's total_ms, plus retry waits", async () => {
    const store = h.gateway.ctx.stateStore;
    const admit = store.admit.bind(store);
    const seen: AdmissionCheck[] = [];
    store.admit = async (checks) => {
      seen.push(...checks);
      return admit(checks);
    };
    try {
      expect(await ask()).toBe(200);
    } finally {
      store.admit = admit;
    }
    const lease = seen.find((c) => c.kind === 'concurrency') as AdmissionCheck & { leaseMs: number };
    expect(lease.leaseMs).toBe(2 * TOTAL_MS + 5_000 + 60_000);
  });
});
