import { describe, expect, it } from 'vitest';
import { admissionPlan, settlementCharges, stateKey } from '../../../src/access/admission-plan.js';
import { keyIndexFor } from '../../../src/access/key-index.js';
import { ANONYMOUS_CALLER } from '../../../src/access/caller.js';
import { resolveConfig } from '../../../src/config/load-config.js';

const cfg = resolveConfig(
  {
    auth: {
      keys: [
        { name: 'al:ice', key: 'k-alice', team: 'research', limits: { rpm: 60, tpm: 1000, concurrency: 2 }, budget: { usd: 1.5, period: 'day' } },
        { name: 'bob', key: 'k-bob' },
      ],
      teams: { research: { limits: { rpm: 600 }, budget: { usd: 100, period: 'month' } } },
    },
    providers: { a: { protocol: 'demo' } },
    models: { demo: { provider: 'a' } },
  },
  'test',
);
const index = keyIndexFor(cfg.authKeys, cfg.auth);
const now = Date.parse('2026-11-25T08:00:00Z');

describe('admission plan', () => {
  it('turns key and team limits into window, concurrency and counter checks', () => {
    const plan = admissionPlan(index.lookup('k-alice')!, now, 60_000);
    expect(plan.checks).toEqual([
      { kind: 'window', key: 'key:al%3Aice:rpm', windowMs: 60_000, limit: 60, cost: 1 },
      { kind: 'window', key: 'key:al%3Aice:tpm', windowMs: 60_000, limit: 1000, cost: 0 },
      { kind: 'concurrency', key: 'key:al%3Aice:concurrency', limit: 2, leaseMs: 60_000 },
      { kind: 'counter', key: 'key:al%3Aice:spend:d2026-11-25', limit: 1_500_000 },
      { kind: 'window', key: 'team:research:rpm', windowMs: 60_000, limit: 600, cost: 1 },
      { kind: 'counter', key: 'team:research:spend:m2026-11', limit: 100_000_000 },
    ]);
    expect(plan.meta.map((m) => `${m.scope}/${m.limit}`)).toEqual(['key/rpm', 'key/tpm', 'key/concurrency', 'key/budget', 'team/rpm', 'team/budget']);
    expect(plan.meta[3]!.resetAtMs).toBe(Date.parse('2026-11-26T00:00:00Z'));
  });

  it("keeps a caller's plan while its budget periods last, and makes a new one in the next period or for another lease time", () => {
    const alice = index.lookup('k-alice')!;
    const plan = admissionPlan(alice, now, 60_000);
    expect(admissionPlan(alice, now + 3_600_000, 60_000)).toBe(plan);
    expect(admissionPlan(alice, now, 30_000)).not.toBe(plan);
    expect(admissionPlan(alice, now, 30_000).checks[2]).toMatchObject({ kind: 'concurrency', leaseMs: 30_000 });
    // The key's daily budget ends at midnight: the next day has its own counter.
    const nextDay = admissionPlan(alice, Date.parse('2026-11-26T00:00:00Z'), 30_000);
    expect(nextDay.checks[3]!.key).toBe('key:al%3Aice:spend:d2026-11-26');
    // A clock that stepped back into the earlier day gets that day's counter again, not the kept plan's.
    expect(admissionPlan(alice, now, 30_000).checks[3]!.key).toBe('key:al%3Aice:spend:d2026-11-25');
  });

  it('has nothing to check for a key without limits or for the anonymous caller', () => {
    expect(admissionPlan(index.lookup('k-bob')!, now, 1).checks).toEqual([]);
    expect(admissionPlan(ANONYMOUS_CALLER, now, 1).checks).toEqual([]);
  });

  it('charges tokens to tpm windows that exist and spend to key, team and model counters', () => {
    const charges = settlementCharges(index.lookup('k-alice')!, { tokens: 1234, costMicros: 5678, modelAlias: 'claude-*' }, now);
    expect(charges.map((c) => ({ ...c, ttlMs: c.kind === 'counter' ? c.ttlMs > 0 : undefined }))).toEqual([
      { kind: 'window', key: 'key:al%3Aice:tpm', windowMs: 60_000, amount: 1234, ttlMs: undefined },
      { kind: 'counter', key: 'key:al%3Aice:spend:d2026-11-25', amount: 5678, ttlMs: true },
      { kind: 'counter', key: 'team:research:spend:m2026-11', amount: 5678, ttlMs: true },
      { kind: 'counter', key: 'model:claude-*:spend:m2026-11', amount: 5678, ttlMs: true },
    ]);
    // Without limits or a price: spend only when there is a cost; nothing at all otherwise.
    expect(settlementCharges(index.lookup('k-bob')!, { tokens: 10, costMicros: 0, modelAlias: 'demo' }, now)).toEqual([]);
    expect(settlementCharges(index.lookup('k-bob')!, { tokens: 10, costMicros: 3, modelAlias: 'demo' }, now).map((c) => c.key)).toEqual([
      'key:bob:spend:m2026-11',
      'model:demo:spend:m2026-11',
    ]);
    expect(stateKey('model', 'a/b', 'x')).toBe('model:a%2Fb:x');
  });
});
