// The key index: hashed and plain keys find their caller; wrong, missing, truncated and padded keys
// find nothing, through the same path (every configured digest compared, whatever the input).
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const compared = vi.hoisted(() => ({ count: 0, hashed: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    hash: (...args: Parameters<typeof real.hash>) => {
      compared.hashed++;
      return real.hash(...args);
    },
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.count++;
      return real.timingSafeEqual(a, b);
    },
  };
});

const { KeyIndex, keyIndexFor } = await import('../../../src/access/key-index.js');
const { resolveConfig } = await import('../../../src/config/load-config.js');

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const cfg = resolveConfig(
  {
    auth: {
      keys: [
        { name: 'alice', key_sha256: sha('sk-alice-0123456789'), team: 'research', models: ['claude-*'], limits: { rpm: 5 } },
        { name: 'bob', key: 'sk-bob-0123456789' },
      ],
      teams: { research: { budget: { usd: 10, period: 'day' } } },
      admin_keys: [{ name: 'ops', key: 'sk-ops-0123456789' }],
    },
    providers: { a: { protocol: 'demo' } },
    models: { demo: { provider: 'a' } },
  },
  'test',
);

describe('key index', () => {
  beforeEach(() => {
    compared.count = 0;
    compared.hashed = 0;
  });

  it('an open gateway with no keys at all hashes nothing: every presented key is nobody', () => {
    const open = resolveConfig({ auth: { open: true }, providers: { a: { protocol: 'demo' } }, models: { demo: { provider: 'a' } } }, 'test');
    const index = new KeyIndex(open.authKeys, open.auth);
    expect(index.open).toBe(true);
    expect(index.lookup('sk-anything')).toBeUndefined();
    expect(index.lookup(undefined)).toBeUndefined();
    expect(compared.hashed).toBe(0);
    // With keys the presented one is hashed once per lookup.
    new KeyIndex(cfg.authKeys, cfg.auth).lookup('sk-bob-0123456789');
    expect(compared.hashed).toBe(1);
  });

  it('finds the caller of a hashed key and of a plain key, with its team policy', () => {
    const index = new KeyIndex(cfg.authKeys, cfg.auth);
    const alice = index.lookup('sk-alice-0123456789')!;
    expect(alice).toMatchObject({ name: 'alice', team: 'research', admin: false, anonymous: false });
    expect(alice.key.limits).toEqual({ rpm: 5, tpm: undefined, concurrency: undefined });
    expect(alice.teamPolicy!.budget).toEqual({ usd: 10, period: 'day' });
    expect(index.lookup('sk-bob-0123456789')).toMatchObject({ name: 'bob', team: undefined, teamPolicy: undefined });
    expect(index.lookup('sk-ops-0123456789')).toMatchObject({ name: 'ops', admin: true });
    expect(index.open).toBe(false);
  });

  it('refuses wrong, truncated, padded, differently cased and missing keys', () => {
    const index = new KeyIndex(cfg.authKeys, cfg.auth);
    for (const k of ['sk-bob-012345678', 'sk-bob-0123456789x', ' sk-bob-0123456789', 'SK-BOB-0123456789', 'sk-carol-000', '', sha('sk-bob-0123456789')]) {
      expect(index.lookup(k), k).toBeUndefined();
    }
    expect(index.lookup(undefined)).toBeUndefined();
  });

  it('compares against every configured digest for any input, never stopping at a match', () => {
    const index = new KeyIndex(cfg.authKeys, cfg.auth);
    const entries = 3;
    for (const k of ['sk-alice-0123456789', 'sk-ops-0123456789', 'wrong', 'sk-bob-012345678', undefined]) {
      compared.count = 0;
      index.lookup(k);
      expect(compared.count, String(k)).toBe(entries);
    }
  });

  it('takes about the same time for a right, wrong, truncated or padded key (loose comparison of medians)', () => {
    // Not a timing assertion (the machine is shared): a guard against a path that, say, returns
    // early for a length mismatch, which would show as a large ratio, not a few percent.
    const index = new KeyIndex(cfg.authKeys, cfg.auth);
    const median = (key: string): number => {
      const samples: number[] = [];
      for (let i = 0; i < 3000; i++) {
        const t = process.hrtime.bigint();
        index.lookup(key);
        samples.push(Number(process.hrtime.bigint() - t));
      }
      return samples.sort((a, b) => a - b)[1500]!;
    };
    const right = median('sk-bob-0123456789');
    for (const other of ['sk-bob-012345678', 'sk-bob-0123456789x', 'zz-bob-0123456789', 'x']) {
      const ratio = median(other) / right;
      expect(ratio, other).toBeGreaterThan(0.25);
      expect(ratio, other).toBeLessThan(4);
    }
  });

  it('is open only with auth.open (never for an empty key list), and is built once per configuration', () => {
    const open = new KeyIndex([], { teams: new Map(), adminKeys: [], open: true });
    expect(open.open).toBe(true);
    expect(new KeyIndex([], { teams: new Map(), adminKeys: [], open: false }).open).toBe(false);
    expect(new KeyIndex([], { teams: new Map(), adminKeys: [], open: false }).lookup(undefined)).toBeUndefined();
    expect(keyIndexFor(cfg.authKeys, cfg.auth)).toBe(keyIndexFor(cfg.authKeys, cfg.auth));
    expect(keyIndexFor([...cfg.authKeys], cfg.auth)).not.toBe(keyIndexFor(cfg.authKeys, cfg.auth));
    expect(keyIndexFor(cfg.authKeys, cfg.auth).callers().map((c) => c.name)).toEqual(['alice', 'bob']);
  });
});
