// `auth` keys, teams, admin keys and prices: resolved as written, and every mistake refused at
// start-up with the field named and no secret in the message.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../../src/config/load-config.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function config(extra: Record<string, unknown>) {
  return {
    providers: { anthropic: { protocol: 'messages', base_url: 'https://api.anthropic.com' } },
    models: { 'claude-x': { provider: 'anthropic' } },
    ...extra,
  };
}

function refusal(extra: Record<string, unknown>): string {
  try {
    resolveConfig(config(extra), 'test');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('auth configuration', () => {
  it('resolves keys with teams, allow-lists, limits and budgets, teams and admin keys', () => {
    const cfg = resolveConfig(
      config({
        auth: {
          keys: [
            { name: 'alice', key_sha256: sha('alice-secret').toUpperCase(), team: 'research', models: ['claude-*', 'gpt-5'], limits: { rpm: 60, tpm: 200000, concurrency: 4 }, budget: { usd: 50, period: 'month' } },
            { name: 'bob', key: 'bob-secret' },
          ],
          teams: { research: { limits: { rpm: 600 }, budget: { usd: 2000, period: 'week' }, models: ['claude-*'] } },
          admin_keys: [{ name: 'ops', key: 'ops-secret' }],
        },
      }),
      'test',
    );
    expect(cfg.authKeys).toEqual([
      {
        name: 'alice',
        keySha256: sha('alice-secret'),
        team: 'research',
        models: ['claude-*', 'gpt-5'],
        limits: { rpm: 60, tpm: 200000, concurrency: 4 },
        budget: { usd: 50, period: 'month' },
      },
      { name: 'bob', key: 'bob-secret' },
    ]);
    expect(cfg.auth.teams.get('research')).toEqual({
      name: 'research',
      models: ['claude-*'],
      limits: { rpm: 600, tpm: undefined, concurrency: undefined },
      budget: { usd: 2000, period: 'week' },
    });
    expect(cfg.auth.adminKeys).toEqual([{ name: 'ops', key: 'ops-secret' }]);
  });

  it('keeps the historical {name, key} form; only disabled: true switches an entry off', () => {
    const cfg = resolveConfig(config({ auth: { keys: [{ name: 'a', key: 'k1' }, { name: 'b', key: '', disabled: true }, { name: 'c', disabled: true }] } }), 'test');
    expect(cfg.authKeys).toEqual([{ name: 'a', key: 'k1' }]);
    expect(cfg.auth.teams.size).toBe(0);
    expect(cfg.auth.adminKeys).toEqual([]);
    expect(cfg.auth.open).toBe(false);
  });

  it('refuses an empty key (an unset variable), naming the entry, for keys and admin keys', () => {
    expect(refusal({ auth: { keys: [{ name: 'a', key: 'k1' }, { name: 'b', key: '' }] } })).toBe(
      'auth.keys.1 (b): key is empty; to switch the entry off, write disabled: true',
    );
    expect(refusal({ auth: { keys: [{ name: 'a', key: 'k1' }], admin_keys: [{ name: 'ops', key: '' }] } })).toBe(
      'auth.admin_keys.0 (ops): key is empty; to switch the entry off, write disabled: true',
    );
    expect(refusal({ auth: { keys: [{ name: 'a', key_sha256: '' }] } })).toBe('auth.keys.0 (a): key_sha256 is empty');
  });

  it('is open only when auth.open: true says so; admin keys alone keep it closed', () => {
    expect(refusal({})).toMatch(/^auth: no keys configured; add auth\.keys, or set auth\.open: true/);
    expect(refusal({ auth: { keys: [{ name: 'a', disabled: true }] } })).toMatch(/^auth: no keys configured \(every auth\.keys entry is disabled\)/);
    expect(refusal({ auth: { open: true, keys: [{ name: 'a', key: 'k' }] } })).toBe('auth.open: true cannot be combined with auth.keys (a); remove one');
    expect(resolveConfig(config({ auth: { open: true } }), 'test').auth.open).toBe(true);
    const adminOnly = resolveConfig(config({ auth: { admin_keys: [{ name: 'ops', key: 'ops-secret' }] } }), 'test');
    expect(adminOnly.auth.open).toBe(false);
    expect(adminOnly.authKeys).toEqual([]);
  });

  it('refuses an unknown team, naming the field and the known teams', () => {
    const msg = refusal({ auth: { keys: [{ name: 'a', key: 'k', team: 'nope' }], teams: { research: {} } } });
    expect(msg).toBe('auth.keys.0.team: unknown team "nope" (known: research)');
  });

  it('refuses duplicate names across keys and admin keys', () => {
    expect(refusal({ auth: { keys: [{ name: 'a', key: 'k1' }, { name: 'a', key: 'k2' }] } })).toBe('auth.keys.1.name: "a" is already used by auth.keys.0');
    expect(refusal({ auth: { keys: [{ name: 'a', key: 'k1' }], admin_keys: [{ name: 'a', key: 'k2' }] } })).toBe(
      'auth.admin_keys.0.name: "a" is already used by auth.keys.0',
    );
  });

  it('refuses one secret behind two names without printing it, plain or hashed', () => {
    const msg = refusal({ auth: { keys: [{ name: 'a', key: 'shared-secret-1' }, { name: 'b', key_sha256: sha('shared-secret-1') }] } });
    expect(msg).toBe('auth.keys.1: the same key as auth.keys.0; every key must be distinct');
    expect(msg).not.toContain('shared-secret-1');
    expect(msg).not.toContain(sha('shared-secret-1'));
  });

  it('refuses bad hashes, both forms at once, and neither', () => {
    expect(refusal({ auth: { keys: [{ name: 'a', key_sha256: 'abc' }] } })).toBe('auth.keys.0.key_sha256: must be 64 hex digits (the sha256 of the key)');
    expect(refusal({ auth: { keys: [{ name: 'a', key_sha256: 'z'.repeat(64) }] } })).toMatch(/^auth\.keys\.0\.key_sha256: /);
    expect(refusal({ auth: { admin_keys: [{ name: 'a', key: 'k', key_sha256: sha('k') }] } })).toBe('auth.admin_keys.0 (a): give key or key_sha256, not both');
    expect(refusal({ auth: { keys: [{ name: 'a' }] } })).toBe('auth.keys.0 (a): needs key or key_sha256 (or disabled: true)');
  });

  it('refuses bad limits, budgets and unknown fields through the schema, naming the field', () => {
    expect(refusal({ auth: { keys: [{ name: 'a', key: 'k', limits: { rpm: 0 } }] } })).toMatch(/^auth\.keys\.0\.limits\.rpm: /);
    expect(refusal({ auth: { keys: [{ name: 'a', key: 'k', budget: { usd: 5, period: 'year' } }] } })).toMatch(/^auth\.keys\.0\.budget\.period: /);
    expect(refusal({ auth: { keys: [{ name: 'a', key: 'k', budget: { usd: 0, period: 'day' } }] } })).toMatch(/^auth\.keys\.0\.budget\.usd: /);
    expect(refusal({ auth: { keys: [{ name: 'a', key: 'k', limit: { rpm: 1 } }] } })).toMatch(/^auth\.keys\.0/);
  });
});

describe('price configuration', () => {
  it('resolves models.<alias>.price and providers.<name>.prices, cache prices defaulting to input', () => {
    const cfg = resolveConfig(
      {
        auth: { open: true },
        providers: {
          anthropic: { protocol: 'messages', base_url: 'https://api.anthropic.com', prices: { 'claude-up': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 } } },
        },
        models: { 'claude-x': { provider: 'anthropic', price: { input: 1, output: 2 } }, 'claude-y': { provider: 'anthropic' } },
      },
      'test',
    );
    expect(cfg.models.find((m) => m.name === 'claude-x')!.price).toEqual({ input: 1, output: 2, cacheRead: 1, cacheWrite: 1 });
    expect(cfg.models.find((m) => m.name === 'claude-y')!.price).toBeUndefined();
    expect(cfg.providers.get('anthropic')!.prices.get('claude-up')).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
  });

  it('refuses a negative price, naming the field', () => {
    expect(refusal({ models: { 'claude-x': { provider: 'anthropic', price: { input: -1, output: 2 } } } })).toMatch(/^models\.claude-x\.price\.input: /);
  });
});
