// The access service over a small in-test state store (the real backends arrive with the shared-state
// work): model access, limits with their headers and refusals, settlement, and the usage views.
import { beforeEach, describe, expect, it } from 'vitest';
import { AccessService } from '../../../src/access/access-service.js';
import { ANONYMOUS_CALLER } from '../../../src/access/caller.js';
import { keyIndexFor } from '../../../src/access/key-index.js';
import { resolveConfig } from '../../../src/config/load-config.js';
import type { Usage } from '../../../src/ir/types.js';
import { TinyStateStore } from './tiny-state-store.js';

const config = resolveConfig(
  {
    auth: {
      keys: [
        { name: 'alice', key: 'k-alice', team: 'research', models: ['claude-*'], limits: { rpm: 3, tpm: 1000, concurrency: 2 }, budget: { usd: 0.01, period: 'day' } },
        { name: 'bob', key: 'k-bob', team: 'research' },
        { name: 'carol', key: 'k-carol' },
      ],
      teams: { research: { limits: { rpm: 100 }, budget: { usd: 1, period: 'month' } } },
      admin_keys: [{ name: 'ops', key: 'k-ops' }],
    },
    providers: {
      anthropic: { protocol: 'messages', base_url: 'https://api.anthropic.com', prices: { 'claude-cheap': { input: 1, output: 2 } } },
    },
    models: {
      'claude-sonnet': { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      'claude-fixed': { provider: 'anthropic', model: 'claude-sonnet-4-5', price: { input: 10, output: 10 } },
      'claude-*': { provider: 'anthropic' },
      'gpt-5': { provider: 'anthropic' },
    },
  },
  'test',
);
const index = keyIndexFor(config.authKeys, config.auth);
const alice = index.lookup('k-alice')!;
const bob = index.lookup('k-bob')!;
const carol = index.lookup('k-carol')!;
const ops = index.lookup('k-ops')!;
const usage = (input: number, output: number): Usage => ({ inputTokens: input, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: output, reasoningTokens: 0 });
const upstream = { provider: 'anthropic', model: 'claude-sonnet-4-5' };

let store: TinyStateStore;
let access: AccessService;
beforeEach(() => {
  store = new TinyStateStore();
  store.now = Date.parse('2026-11-25T08:00:00Z');
  access = new AccessService(store, { config: () => config, now: () => store.now, leaseMs: 120_000 });
});

describe('access service: admission', () => {
  it('refuses a model outside the allow-list as not found, and admin keys with permission', async () => {
    const a = await access.admit(alice, 'gpt-5', 'messages');
    expect(a.ok).toBe(false);
    if (a.ok) return;
    expect(a.error).toMatchObject({ kind: 'not_found', param: 'model', code: 'model_not_found', message: 'model "gpt-5" is not available: not configured on this gateway, or not allowed for this API key' });
    const b = await access.admit(ops, 'claude-sonnet', 'messages');
    expect(!b.ok && b.error.kind).toBe('permission');
    expect(store.calls).toEqual([]);
  });

  it('lets unlimited callers in without a state call', async () => {
    expect(await access.admit(carol, 'gpt-5', 'responses')).toEqual({ ok: true, headers: {}, leases: [], budgets: [] });
    expect(await access.admit(ANONYMOUS_CALLER, 'gpt-5', 'responses')).toEqual({ ok: true, headers: {}, leases: [], budgets: [] });
    expect(store.calls).toEqual([]);
  });

  it('counts requests per minute, with headers, and refuses the fourth with retry-after', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await access.admit(alice, 'claude-sonnet', 'messages');
      expect(a.ok).toBe(true);
      if (a.ok) await access.settle(alice, 'claude-sonnet', undefined, undefined, a.leases);
      seen.push(a.headers['anthropic-ratelimit-requests-remaining']!);
      store.now += 10_000;
    }
    expect(seen).toEqual(['2', '1', '0']);
    const refused = await access.admit(alice, 'claude-sonnet', 'responses');
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.kind).toBe('rate_limit');
    // The first request leaves the window 60 s after it came, 30 s from now.
    expect(refused.error.retryAfter).toBe('30');
    expect(refused.headers).toMatchObject({ 'x-ratelimit-limit-requests': '3', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '30s' });
    store.now += 30_001;
    expect((await access.admit(alice, 'claude-sonnet', 'messages')).ok).toBe(true);
  });

  it('holds concurrency leases until settle gives them back', async () => {
    const a1 = await access.admit(alice, 'claude-sonnet', 'messages');
    const a2 = await access.admit(alice, 'claude-sonnet', 'messages');
    const a3 = await access.admit(alice, 'claude-sonnet', 'messages');
    expect([a1.ok, a2.ok, a3.ok]).toEqual([true, true, false]);
    expect(!a3.ok && a3.error.message).toBe('rate limit of key "alice" reached: 2 concurrent requests; retry in 1 s');
    if (!a1.ok) return;
    await access.settle(alice, 'claude-sonnet', upstream, usage(1, 1), a1.leases);
    store.now += 60_001; // the rpm window empties too
    expect((await access.admit(alice, 'claude-sonnet', 'messages')).ok).toBe(true);
  });

  it('charges tokens after the answer and refuses the next request once the tpm window is full', async () => {
    const a = await access.admit(alice, 'claude-cheap', 'messages');
    if (!a.ok) throw a.error;
    // 900 + 200 tokens: the answer in flight completes and overshoots; the next request is refused.
    await access.settle(alice, 'claude-cheap', { provider: 'anthropic', model: 'claude-cheap' }, usage(900, 200), a.leases);
    const b = await access.admit(alice, 'claude-cheap', 'messages');
    expect(!b.ok && b.error.message).toBe('rate limit of key "alice" reached: 1000 tokens per minute; retry in 60 s');
    expect(b.headers['anthropic-ratelimit-tokens-remaining']).toBe('0');
  });

  it('adds the cost to key, team and model spend and refuses over budget with a billing error', async () => {
    const a = await access.admit(alice, 'claude-sonnet', 'messages');
    if (!a.ok) throw a.error;
    // claude-sonnet-4-5: $3 in / $15 out per MTok → 500×3 + 600×15 = 10500 µUSD > the $0.01 daily budget.
    const settled = await access.settle(alice, 'claude-sonnet', upstream, usage(500, 600), a.leases);
    expect(settled).toEqual({ costMicros: 10_500, priced: true });
    expect(store.counters.get('key:alice:spend:d2026-11-25')).toBe(10_500);
    expect(store.counters.get('team:research:spend:m2026-11')).toBe(10_500);
    expect(store.counters.get('model:claude-sonnet:spend:m2026-11')).toBe(10_500);
    store.now += 120_000;
    const b = await access.admit(alice, 'claude-sonnet', 'messages');
    expect(b.ok).toBe(false);
    if (b.ok) return;
    expect(b.error.kind).toBe('billing');
    expect(b.error.message).toBe('the daily budget of key "alice" ($0.01) is used up (spent $0.01); it resets at 2026-11-26T00:00:00Z');
    // The refusal reports the spend it saw, for the budget gauges.
    expect(b.budgets).toEqual([
      { scope: 'key', owner: 'alice', usedUsd: 0.0105 },
      { scope: 'team', owner: 'research', usedUsd: 0.0105 },
    ]);
    // The budget of the team is separate: bob (same team, no budget of its own) still gets in.
    expect((await access.admit(bob, 'claude-sonnet', 'messages')).ok).toBe(true);
  });

  it('prices an answer without I/O, and settles a precomputed cost without pricing again', async () => {
    expect(access.costOf('claude-sonnet', upstream, usage(500, 600))).toEqual({ costMicros: 10_500, priced: true });
    expect(access.costOf('claude-sonnet', { provider: 'anthropic', model: 'unknown-model' }, usage(500, 600))).toEqual({ costMicros: 0, priced: false });
    expect(access.costOf('claude-sonnet', upstream, undefined)).toEqual({ costMicros: 0, priced: false });
    expect(store.calls).toEqual([]);
    await access.settle(carol, 'claude-sonnet', upstream, usage(500, 600), [], { costMicros: 7, priced: true });
    expect(store.counters.get('key:carol:spend:m2026-11')).toBe(7);
  });

  it('charges nothing for the anonymous caller of an open gateway (no state call)', async () => {
    expect(await access.settle(ANONYMOUS_CALLER, 'claude-sonnet', upstream, usage(500, 600), [])).toEqual({ costMicros: 10_500, priced: true });
    expect(store.calls).toEqual([]);
  });

  it('uses the alias price over the shipped one, and counts an unknown model as unpriced', async () => {
    expect(await access.settle(carol, 'claude-fixed', upstream, usage(1000, 1000), [])).toEqual({ costMicros: 20_000, priced: true });
    expect(await access.settle(carol, 'claude-*', { provider: 'anthropic', model: 'claude-unknown' }, usage(1000, 1000), [])).toEqual({ costMicros: 0, priced: false });
  });

  it('releases leases even when charging fails', async () => {
    const a = await access.admit(alice, 'claude-sonnet', 'messages');
    if (!a.ok) throw a.error;
    store.charge = async () => {
      throw new Error('backend down');
    };
    await expect(access.settle(alice, 'claude-sonnet', upstream, usage(1, 1), a.leases)).rejects.toThrow('backend down');
    expect(store.calls.at(-1)).toEqual({ op: 'release', arg: a.leases });
  });
});

describe('access service: views', () => {
  it('shows the calling key its limits, what is left, and its and its team spend', async () => {
    const a = await access.admit(alice, 'claude-sonnet', 'messages');
    if (!a.ok) throw a.error;
    await access.settle(alice, 'claude-sonnet', upstream, usage(100, 100), a.leases);
    const view = await access.usageView(alice);
    expect(view.key).toBe('alice');
    expect(view.team).toBe('research');
    expect(view.limits.map((l) => [l.scope, l.limit, l.max, l.used, l.remaining])).toEqual([
      ['key', 'rpm', 3, 1, 2],
      ['key', 'tpm', 1000, 200, 800],
      ['key', 'concurrency', 2, 0, 2],
      ['team', 'rpm', 100, 1, 99],
    ]);
    expect(view.spend).toEqual([
      { scope: 'key', owner: 'alice', period: 'd2026-11-25', usd: 0.0018, budget_usd: 0.01, remaining_usd: 0.0082, resets_at: '2026-11-26T00:00:00Z' },
      { scope: 'team', owner: 'research', period: 'm2026-11', usd: 0.0018, budget_usd: 1, remaining_usd: 0.9982, resets_at: '2026-12-01T00:00:00Z' },
    ]);
    // Isolation: another key sees its own numbers, not alice's.
    const carolView = await access.usageView(carol);
    expect(carolView).toEqual({ key: 'carol', team: null, expires_at: null, limits: [], spend: [expect.objectContaining({ owner: 'carol', usd: 0, budget_usd: null })] });
  });

  it('shows admins every key, every team and this month per model', async () => {
    await access.settle(bob, 'claude-sonnet', upstream, usage(1000, 0), []);
    const view = await access.adminView();
    expect(view.keys.map((k) => k.key)).toEqual(['alice', 'bob', 'carol']);
    expect(view.keys[1]!.spend.map((s) => s.usd)).toEqual([0.003, 0.003]);
    expect(view.teams).toEqual([
      {
        team: 'research',
        limits: [{ scope: 'team', owner: 'research', limit: 'rpm', max: 100, used: 0, remaining: 100, resets_at: null }],
        spend: { scope: 'team', owner: 'research', period: 'm2026-11', usd: 0.003, budget_usd: 1, remaining_usd: 0.997, resets_at: '2026-12-01T00:00:00Z' },
      },
    ]);
    expect(view.models).toContainEqual({ model: 'claude-sonnet', period: 'm2026-11', usd: 0.003 });
    expect(view.models).toContainEqual({ model: 'gpt-5', period: 'm2026-11', usd: 0 });
  });
});
