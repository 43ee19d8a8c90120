// retry-after on a concurrency refusal (issue 33, item 5): when a slot is likely to free, from how long
// leases were held lately, never the lease's lifetime (a lease lives as long as its request could: an
// hour with the defaults, which the refusal used to announce). On the real memory store with a clock the
// test moves; the e2e side is in test/e2e/access/access-sdk.test.ts.
import { beforeEach, describe, expect, it } from 'vitest';
import { AccessService } from '../../../src/access/access-service.js';
import { keyIndexFor } from '../../../src/access/key-index.js';
import { LeaseHoldTimes, MAX_CONCURRENCY_WAIT_MS, MIN_CONCURRENCY_WAIT_MS } from '../../../src/access/lease-wait.js';
import { resolveConfig } from '../../../src/config/load-config.js';
import type { GatewayError } from '../../../src/errors.js';
import { MemoryStateStore } from '../../../src/state/memory-store.js';

const config = resolveConfig(
  {
    auth: {
      keys: [
        { name: 'single', key: 'k-single', limits: { concurrency: 1 } },
        { name: 'both', key: 'k-both', limits: { concurrency: 1, rpm: 1 } },
      ],
    },
    providers: { anthropic: { protocol: 'messages', base_url: 'https://api.anthropic.com' } },
    models: { claude: { provider: 'anthropic', model: 'claude-x' } },
  },
  'test',
);
const index = keyIndexFor(config.authKeys, config.auth);
const single = index.lookup('k-single')!;
const both = index.lookup('k-both')!;
/** What leaseMsFor gives with the default timeouts and retries (30 min × 2 attempts + budget + margin). */
const LEASE_MS = 3_690_000;

let now: number;
let access: AccessService;
beforeEach(() => {
  now = Date.parse('2026-12-04T10:00:00Z');
  access = new AccessService(new MemoryStateStore({ now: () => now }), { config: () => config, now: () => now });
});

async function hold(ms: number): Promise<void> {
  const a = await access.admit(single, 'claude', 'messages', LEASE_MS);
  if (!a.ok) throw a.error;
  now += ms;
  await access.settle(single, 'claude', undefined, undefined, a.leases);
}

async function refusal(caller = single): Promise<GatewayError> {
  const a = await access.admit(caller, 'claude', 'messages', LEASE_MS);
  if (a.ok) throw new Error('admitted');
  return a.error;
}

describe('retry-after of a concurrency refusal', () => {
  it('is a second, not the lease lifetime, before any lease came back', async () => {
    expect((await access.admit(single, 'claude', 'messages', LEASE_MS)).ok).toBe(true);
    const err = await refusal();
    expect(err).toMatchObject({ kind: 'rate_limit', retryAfter: '1', retryAfterMs: '1000' });
    expect(err.message).toBe('rate limit of key "single" reached: 1 concurrent requests; retry in 1 s');
  });

  it('is what remains of a typical hold for the oldest lease', async () => {
    for (let i = 0; i < 3; i++) await hold(4_000);
    expect((await access.admit(single, 'claude', 'messages', LEASE_MS)).ok).toBe(true);
    now += 1_000;
    // Held 4 s lately; the lease in the way has been held 1 s: about 3 s left.
    expect(await refusal()).toMatchObject({ retryAfter: '3', retryAfterMs: '3000' });
    now += 2_500;
    expect(await refusal()).toMatchObject({ retryAfter: '1', retryAfterMs: String(MIN_CONCURRENCY_WAIT_MS) });
  });

  it('is capped: long streams make a client come back in 10 s and ask again, not wait for them', async () => {
    for (let i = 0; i < 3; i++) await hold(300_000);
    expect((await access.admit(single, 'claude', 'messages', LEASE_MS)).ok).toBe(true);
    expect(await refusal()).toMatchObject({ retryAfter: '10', retryAfterMs: String(MAX_CONCURRENCY_WAIT_MS) });
  });

  it('with an rpm window refusing too, the longer of the two waits', async () => {
    expect((await access.admit(both, 'claude', 'messages', LEASE_MS)).ok).toBe(true);
    now += 5_000;
    const err = await refusal(both);
    // The rpm window's request leaves it 55–56 s from now (one-second buckets): that wait stands.
    expect(Number(err.retryAfter)).toBeGreaterThanOrEqual(55);
    expect(Number(err.retryAfter)).toBeLessThanOrEqual(56);
  });
});

describe('LeaseHoldTimes', () => {
  it('averages recent holds and subtracts the oldest lease\'s age, within [1 s, 10 s]', () => {
    const h = new LeaseHoldTimes();
    expect(h.freeInMs(LEASE_MS, LEASE_MS)).toBe(MIN_CONCURRENCY_WAIT_MS);
    h.observe(8_000);
    expect(h.typicalMs).toBe(8_000);
    expect(h.freeInMs(LEASE_MS - 2_000, LEASE_MS)).toBe(6_000);
    h.observe(Number.NaN);
    h.observe(-5);
    expect(h.typicalMs).toBe(8_000);
    for (let i = 0; i < 50; i++) h.observe(2_000);
    expect(h.typicalMs).toBeCloseTo(2_000, 0);
  });
});
