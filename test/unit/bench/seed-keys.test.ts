// The runtime-keys bench's seeding helper: what it writes must be what the admin API writes, every
// seeded secret must authenticate as its key through RuntimeKeys, and a clash must fail whole.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyAdmin } from '../../../src/access/key-admin.js';
import { keyId, type KeyRecord } from '../../../src/access/key-records.js';
import { secretDigest } from '../../../src/access/key-secret.js';
import { RuntimeKeys } from '../../../src/access/runtime-keys.js';
import type { AuthConfig } from '../../../src/config/types.js';
import { FileStateStore } from '../../../src/state/file-store.js';
import { MemoryStateStore } from '../../../src/state/memory-store.js';
import type { StateStore } from '../../../src/state/types.js';
import { seedName, seedRuntimeKeys } from '../../../bench/lib/seed-keys.js';

const auth: AuthConfig = { teams: new Map(), adminKeys: [], open: false };
const limits = { rpm: 1000, tpm: 100_000, concurrency: 10 };
const budget = { usd: 50, period: 'month' as const };

const dirs: string[] = [];
const stores: StateStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function memory(): StateStore {
  const s = new MemoryStateStore();
  stores.push(s);
  return s;
}

describe('seedRuntimeKeys', () => {
  it('writes records that RuntimeKeys authenticates, one batch per writeRecords call', async () => {
    const store = memory();
    // 1,234 in batches of 500: three calls, the last one partial.
    const seeded = await seedRuntimeKeys(store, { count: 1234, batch: 500, fields: (i) => (i % 2 === 0 ? { limits, budget } : {}) });
    expect(seeded).toHaveLength(1234);
    expect(new Set(seeded.map((k) => k.secret)).size).toBe(1234);
    expect(await store.recordsVersion()).toBe(3);
    expect(await store.readAudit(10)).toHaveLength(3);

    const runtime = new RuntimeKeys(store);
    await runtime.start();
    runtime.stop();
    expect(runtime.keys()).toHaveLength(1234);
    for (const [i, k] of seeded.entries()) {
      const found = runtime.lookup(secretDigest(k.secret), auth);
      expect(found?.ok, k.name).toBe(true);
      if (found?.ok !== true) continue;
      expect(found.caller.name).toBe(seedName(i));
      expect(found.caller.key.limits).toEqual(i % 2 === 0 ? limits : undefined);
      expect(found.caller.key.budget).toEqual(i % 2 === 0 ? budget : undefined);
    }
    // A secret that was never seeded is no runtime key.
    expect(runtime.lookup(secretDigest('sk-sy-rt-not-seeded'), auth)).toBeUndefined();
  });

  it('stores exactly the fields POST /admin/keys stores for the same body', async () => {
    const store = memory();
    const runtime = new RuntimeKeys(store);
    await runtime.start();
    runtime.stop();
    const admin = new KeyAdmin(store, runtime, () => ({ authKeys: [], auth, models: [] }), pino({ level: 'silent' }), () => 1_800_000_000_000);
    await admin.createKey('ops', { name: 'via-api', limits, budget, metadata: { owner: 'bench' } });
    await seedRuntimeKeys(store, { count: 1, name: () => 'via-seed', admin: 'ops', fields: () => ({ limits, budget, metadata: { owner: 'bench' } }), now: () => 1_800_000_000_000 });
    const snap = await store.readRecords();
    const api = JSON.parse(snap.records.get(keyId('via-api'))!) as KeyRecord;
    const seed = JSON.parse(snap.records.get(keyId('via-seed'))!) as KeyRecord;
    const strip = (r: KeyRecord) => ({ ...r, name: undefined, prefix: r.prefix.slice(0, 9), sha256: r.sha256.length });
    expect(Object.keys(seed)).toEqual(Object.keys(api));
    expect(strip(seed)).toEqual(strip(api));
  });

  it('fails on a name that exists, and writes nothing of that batch', async () => {
    const store = memory();
    await seedRuntimeKeys(store, { count: 1, name: () => seedName(2) });
    await expect(seedRuntimeKeys(store, { count: 5, batch: 10 })).rejects.toThrow(/key:seed-00002 already exists/);
    expect([...(await store.readRecords()).records.keys()]).toEqual([keyId(seedName(2))]);
  });

  it('seeds the file backend the same way', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-seed-test-'));
    dirs.push(dir);
    const store = new FileStateStore({ path: path.join(dir, 'state') });
    stores.push(store);
    const seeded = await seedRuntimeKeys(store, { count: 600, batch: 250, fields: () => ({ limits }) });
    const runtime = new RuntimeKeys(store);
    await runtime.start();
    runtime.stop();
    expect(runtime.keys()).toHaveLength(600);
    const last = runtime.lookup(secretDigest(seeded[599]!.secret), auth);
    expect(last?.ok === true ? last.caller.name : last).toBe(seedName(599));
  });
});
