// RuntimeKeys after a change reads only the changed records (the store's change list), and the copy it
// keeps that way is the copy a full read gives: the same keys, teams and answers for every secret.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { KeyAdmin } from '../../../src/access/key-admin.js';
import { secretDigest } from '../../../src/access/key-secret.js';
import { RuntimeKeys } from '../../../src/access/runtime-keys.js';
import type { AuthConfig } from '../../../src/config/types.js';
import { MemoryStateStore } from '../../../src/state/memory-store.js';
import type { RecordChanges, RecordSnapshot } from '../../../src/state/types.js';

const auth: AuthConfig = { teams: new Map(), adminKeys: [], open: false };

/** Counts full reads; `changeList: false` makes it a store that keeps none (as before it existed). */
class CountingStore extends MemoryStateStore {
  fullReads = 0;
  changeReads = 0;
  changeList = true;
  override async readRecords(): Promise<RecordSnapshot> {
    this.fullReads++;
    return super.readRecords();
  }
  override async readRecordChanges(since: number): Promise<RecordChanges | undefined> {
    this.changeReads++;
    return this.changeList ? super.readRecordChanges(since) : undefined;
  }
}

function setup() {
  const store = new CountingStore();
  const adminView = new RuntimeKeys(store);
  const admin = new KeyAdmin(store, adminView, () => ({ authKeys: [], auth, models: [] }), pino({ level: 'silent' }));
  return { store, adminView, admin };
}

/** What a process knows: every key, team, and the answer for each secret ever issued. */
function view(r: RuntimeKeys, secrets: string[]) {
  return {
    keys: r.keys().sort((a, b) => a.name.localeCompare(b.name)),
    teams: r.teams().sort((a, b) => a.name.localeCompare(b.name)),
    lookups: secrets.map((s) => r.lookup(secretDigest(s), auth)),
  };
}

async function fullRead(store: CountingStore): Promise<RuntimeKeys> {
  const fresh = new RuntimeKeys(store);
  await fresh.start();
  fresh.stop();
  return fresh;
}

describe('RuntimeKeys propagation', () => {
  it('applies each change from the change list and ends with what a full read gives', async () => {
    const { store, admin } = setup();
    const secrets: string[] = [];
    await admin.createTeam('ops', { name: 'research', limits: { rpm: 10 } });
    for (let i = 0; i < 20; i++) secrets.push((await admin.createKey('ops', { name: `k${i}`, team: i % 2 === 0 ? 'research' : undefined, limits: { rpm: 100 + i } })).key);
    const watcher = new RuntimeKeys(store);
    await watcher.start();
    watcher.stop();
    const readsAtStart = store.fullReads;

    const steps: (() => Promise<unknown>)[] = [
      () => admin.updateKey('ops', 'k3', { limits: { rpm: 7 }, metadata: { owner: 'x' } }),
      async () => secrets.push((await admin.rotateKey('ops', 'k3', { grace_s: 60 })).key),
      async () => secrets.push((await admin.rotateKey('ops', 'k5', {})).key),
      () => admin.updateKey('ops', 'k6', { disabled: true }),
      () => admin.revokeKey('ops', 'k7'),
      () => admin.updateTeam('ops', 'research', { limits: { rpm: 1 } }),
      async () => secrets.push((await admin.createKey('ops', { name: 'late', team: 'research' })).key),
      () => admin.updateTeam('ops', 'research', { disabled: true }),
      () => admin.updateKey('ops', 'k0', { team: null }),
    ];
    for (const step of steps) {
      await step();
      await watcher.refresh();
      expect(view(watcher, secrets)).toEqual(view(await fullRead(store), secrets));
    }
    // Two changes between polls: one read of both.
    await admin.revokeKey('ops', 'k8');
    await admin.updateKey('ops', 'k9', { disabled: true });
    await watcher.refresh();
    expect(view(watcher, secrets)).toEqual(view(await fullRead(store), secrets));

    // The watcher never read everything again (the fresh copies above did, once each).
    expect(store.fullReads - readsAtStart).toBe(steps.length + 1);
    expect(watcher.key('k7')).toBeUndefined();
    expect(watcher.lookup(secretDigest(secrets[7]!), auth)).toBeUndefined();
    expect(watcher.lookup(secretDigest(secrets[6]!), auth)).toEqual({ ok: false, reason: 'disabled' });
    // The rotated-out secret of k3 (no team) is still in its grace period; k5's is gone at once.
    expect(watcher.lookup(secretDigest(secrets[3]!), auth)?.ok).toBe(true);
    expect(watcher.lookup(secretDigest(secrets[5]!), auth)).toBeUndefined();
    expect(watcher.lookup(secretDigest(secrets[2]!), auth)).toEqual({ ok: false, reason: 'team disabled' });
  });

  it('reads everything when the store keeps no change list', async () => {
    const { store, admin } = setup();
    const first = (await admin.createKey('ops', { name: 'a' })).key;
    const watcher = new RuntimeKeys(store);
    await watcher.start();
    watcher.stop();
    store.changeList = false;
    const before = store.fullReads;
    const second = (await admin.createKey('ops', { name: 'b' })).key;
    await admin.revokeKey('ops', 'a');
    await watcher.refresh();
    expect(store.fullReads).toBeGreaterThan(before);
    expect(watcher.lookup(secretDigest(first), auth)).toBeUndefined();
    expect(watcher.lookup(secretDigest(second), auth)?.ok).toBe(true);
  });

  it('keeps the caller of an unchanged key across another key’s change, and drops the changed one', async () => {
    const { store, admin } = setup();
    const a = (await admin.createKey('ops', { name: 'a', limits: { rpm: 5 } })).key;
    const b = (await admin.createKey('ops', { name: 'b', limits: { rpm: 5 } })).key;
    const watcher = new RuntimeKeys(store);
    await watcher.start();
    watcher.stop();
    const callerOf = (s: string) => {
      const r = watcher.lookup(secretDigest(s), auth);
      return r?.ok === true ? r.caller : undefined;
    };
    const a0 = callerOf(a);
    const b0 = callerOf(b);
    await admin.updateKey('ops', 'b', { limits: { rpm: 9 } });
    await watcher.refresh();
    expect(callerOf(a)).toBe(a0);
    expect(callerOf(b)).not.toBe(b0);
    expect(callerOf(b)?.key.limits).toEqual({ rpm: 9 });
    expect(store.changeReads).toBeGreaterThan(0);
  });
});
