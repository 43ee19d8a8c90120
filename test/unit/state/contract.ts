// The StateStore contract: every backend runs this same suite (memory.test.ts, file.test.ts,
// redis.test.ts). Time is moved by the target: a fake clock for memory/file, real sleeps for Redis
// (whose clock is the server's), so time-dependent expectations allow the target's `slackMs`.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { bucketMs } from '../../../src/state/admission-logic.js';
import type { StoreOptions } from '../../../src/state/options.js';
import { AUDIT_KEEP, RECORD_CHANGES_KEEP, type AdmissionCheck, type StateStore } from '../../../src/state/types.js';

export interface ContractTarget {
  /** A fresh, empty store (its own directory / key prefix). */
  make(options?: StoreOptions): Promise<StateStore>;
  /** Lets time pass as the store sees it. */
  advance(ms: number): Promise<void>;
  /** How far real time may drift during a test (0 with a fake clock). */
  slackMs: number;
  /** Arguments for race-worker.ts to open the store last made: [backend, location, prefix]. */
  shared?: () => [string, string, string];
}

const WORKER = fileURLToPath(new URL('./race-worker.ts', import.meta.url));

export function runWorker(args: string[], timeoutMs = 20_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', WORKER, ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`worker ${args.join(' ')} failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!));
    });
  });
}

const bytes = (s: string) => Buffer.from(s);
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString());

export function stateStoreContract(target: ContractTarget): void {
  const open: StateStore[] = [];
  const make = async (options?: StoreOptions) => {
    const s = await target.make(options);
    open.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const slack = target.slackMs;

  describe('documents', () => {
    it('puts, gets, replaces and deletes', async () => {
      const s = await make();
      expect(await s.getDoc('docs', 'a', 'alice')).toBeUndefined();
      await s.putDoc('docs', 'a', 'alice', bytes('one'), 60_000);
      expect(text(await s.getDoc('docs', 'a', 'alice'))).toBe('one');
      await s.putDoc('docs', 'a', 'alice', bytes('two'), 60_000);
      expect(text(await s.getDoc('docs', 'a', 'alice'))).toBe('two');
      expect(await s.deleteDoc('docs', 'a', 'alice')).toBe(true);
      expect(await s.getDoc('docs', 'a', 'alice')).toBeUndefined();
      expect(await s.deleteDoc('docs', 'a', 'alice')).toBe(false);
    });

    it('keeps binary values byte-exact', async () => {
      const s = await make();
      const value = Uint8Array.from({ length: 256 }, (_, i) => i);
      await s.putDoc('docs', 'bin', 'alice', value, 60_000);
      expect(Buffer.from((await s.getDoc('docs', 'bin', 'alice'))!).equals(Buffer.from(value))).toBe(true);
    });

    it('isolates owners: another owner neither reads nor deletes', async () => {
      const s = await make();
      await s.putDoc('docs', 'a', 'alice', bytes('secret'), 60_000);
      expect(await s.getDoc('docs', 'a', 'bob')).toBeUndefined();
      expect(await s.deleteDoc('docs', 'a', 'bob')).toBe(false);
      expect(text(await s.getDoc('docs', 'a', 'alice'))).toBe('secret');
    });

    it('keeps namespaces apart', async () => {
      const s = await make();
      await s.putDoc('one', 'a', 'alice', bytes('1'), 60_000);
      expect(await s.getDoc('two', 'a', 'alice')).toBeUndefined();
    });

    it('expires documents after their TTL', async () => {
      const s = await make();
      await s.putDoc('docs', 'short', 'alice', bytes('x'), 300);
      await s.putDoc('docs', 'long', 'alice', bytes('y'), 60_000);
      expect(text(await s.getDoc('docs', 'short', 'alice'))).toBe('x');
      await target.advance(300 + slack + 50);
      expect(await s.getDoc('docs', 'short', 'alice')).toBeUndefined();
      expect(text(await s.getDoc('docs', 'long', 'alice'))).toBe('y');
    });

    it('evicts the oldest written first beyond the byte bound', async () => {
      // Each document costs 100 value bytes + id (2) + owner (5) = 107; the bound holds three.
      const s = await make({ namespaces: [{ name: 'docs', maxBytes: 330 }] });
      const v = Buffer.alloc(100, 1);
      for (const id of ['d1', 'd2', 'd3']) await s.putDoc('docs', id, 'alice', v, 60_000);
      // Rewriting d1 makes it the newest: d2 is now the oldest.
      await s.putDoc('docs', 'd1', 'alice', v, 60_000);
      await s.putDoc('docs', 'd4', 'alice', v, 60_000);
      expect(await s.getDoc('docs', 'd2', 'alice')).toBeUndefined();
      for (const id of ['d1', 'd3', 'd4']) expect(await s.getDoc('docs', id, 'alice')).toBeDefined();
      // A deleted document gives its bytes back: two more fit without evicting d3.
      expect(await s.deleteDoc('docs', 'd1', 'alice')).toBe(true);
      await s.putDoc('docs', 'd5', 'alice', v, 60_000);
      expect(await s.getDoc('docs', 'd3', 'alice')).toBeDefined();
      await s.putDoc('docs', 'd6', 'alice', v, 60_000);
      expect(await s.getDoc('docs', 'd3', 'alice')).toBeUndefined();
      expect(await s.getDoc('docs', 'd4', 'alice')).toBeDefined();
    });

    it('refuses a single document larger than its namespace bound, keeping the rest', async () => {
      const s = await make({ namespaces: [{ name: 'docs', maxBytes: 200 }] });
      await s.putDoc('docs', 'small', 'alice', bytes('x'), 60_000);
      await expect(s.putDoc('docs', 'big', 'alice', Buffer.alloc(300), 60_000)).rejects.toThrow(/exceeds the docs namespace bound of 200 bytes/);
      expect(await s.getDoc('docs', 'small', 'alice')).toBeDefined();
    });

    it("gives each owner a share: an owner beyond it evicts its own oldest, never another owner's", async () => {
      // 107 bytes a document (ids of 2, owners of 5); the namespace holds six, an owner three.
      const s = await make({ namespaces: [{ name: 'docs', maxBytes: 650, ownerMaxBytes: 330 }] });
      const v = Buffer.alloc(100, 1);
      for (const id of ['a1', 'a2']) await s.putDoc('docs', id, 'alice', v, 60_000);
      for (let i = 1; i <= 9; i++) await s.putDoc('docs', 'm' + i, 'mallo', v, 60_000);
      // Alice's older documents survive nine writes of mallory's; mallory keeps only its newest three.
      for (const id of ['a1', 'a2']) expect(await s.getDoc('docs', id, 'alice')).toBeDefined();
      for (let i = 1; i <= 6; i++) expect(await s.getDoc('docs', 'm' + i, 'mallo')).toBeUndefined();
      for (let i = 7; i <= 9; i++) expect(await s.getDoc('docs', 'm' + i, 'mallo')).toBeDefined();
      // A rewrite and a delete keep the owner's account right: after deleting one, two more fit.
      await s.putDoc('docs', 'm7', 'mallo', v, 60_000);
      expect(await s.deleteDoc('docs', 'm8', 'mallo')).toBe(true);
      await s.putDoc('docs', 'm10', 'mallo', v, 60_000);
      for (const id of ['m7', 'm9', 'm10']) expect(await s.getDoc('docs', id, 'mallo')).toBeDefined();
      await s.putDoc('docs', 'm11', 'mallo', v, 60_000);
      expect(await s.getDoc('docs', 'm9', 'mallo')).toBeUndefined();
      // The namespace bound still holds across owners: alice's own third fits, the whole stays ≤ 6.
      await s.putDoc('docs', 'a3', 'alice', v, 60_000);
      for (const id of ['a1', 'a2', 'a3']) expect(await s.getDoc('docs', id, 'alice')).toBeDefined();
      // A document larger than one owner's share is refused.
      await expect(s.putDoc('docs', 'big', 'alice', Buffer.alloc(400), 60_000)).rejects.toThrow(/exceeds the docs namespace bound of 330 bytes/);
    });
  });

  describe('claims', () => {
    it('says whose an id is; never transfers a live claim; renews the same owner\'s', async () => {
      const s = await make();
      expect(await s.claimOwners('docs', ['r1', 'r2'])).toEqual([undefined, undefined]);
      await s.claim('docs', ['r1', 'i1'], 'alice', 60_000);
      await s.claim('docs', ['r1', 'r2'], 'bob', 60_000);
      expect(await s.claimOwners('docs', ['r1', 'i1', 'r2', 'zz'])).toEqual(['alice', 'alice', 'bob', undefined]);
      expect(await s.claimOwners('other', ['r1'])).toEqual([undefined]);
      await s.claim('docs', ['r1'], 'alice', 60_000);
      expect(await s.claimOwners('docs', ['r1'])).toEqual(['alice']);
    });

    it('expire after their TTL, after which the id may be claimed again', async () => {
      const s = await make();
      await s.claim('docs', ['short'], 'alice', 300);
      await s.claim('docs', ['long'], 'alice', 60_000);
      await target.advance(300 + slack + 50);
      expect(await s.claimOwners('docs', ['short', 'long'])).toEqual([undefined, 'alice']);
      await s.claim('docs', ['short'], 'bob', 60_000);
      expect(await s.claimOwners('docs', ['short'])).toEqual(['bob']);
    });

    it('live outside the byte bound: neither evicted by documents nor removed by deleteDoc', async () => {
      const s = await make({ namespaces: [{ name: 'docs', maxBytes: 330, ownerMaxBytes: 330 }] });
      await s.putDoc('docs', 'r1', 'alice', Buffer.alloc(100), 60_000);
      await s.claim('docs', ['r1'], 'alice', 60_000);
      for (let i = 0; i < 10; i++) await s.putDoc('docs', 'm' + i, 'mallo', Buffer.alloc(100), 60_000);
      expect(await s.getDoc('docs', 'r1', 'alice')).toBeUndefined();
      expect(await s.claimOwners('docs', ['r1'])).toEqual(['alice']);
      await s.putDoc('docs', 'r2', 'alice', Buffer.alloc(100), 60_000);
      await s.claim('docs', ['r2'], 'alice', 60_000);
      expect(await s.deleteDoc('docs', 'r2', 'alice')).toBe(true);
      expect(await s.claimOwners('docs', ['r2'])).toEqual(['alice']);
    });
  });

  describe('admission', () => {
    const win = (key: string, limit: number, cost = 1, windowMs = 1000): AdmissionCheck => ({ kind: 'window', key, windowMs, limit, cost });

    it('sliding window: admits up to the limit, then refuses with retryAfterMs until the oldest leaves', async () => {
      const s = await make();
      for (let i = 0; i < 3; i++) {
        const r = await s.admit([win('w', 3)]);
        expect(r.ok).toBe(true);
        expect(r.states[0]).toMatchObject({ used: i, limit: 3 });
      }
      const refused = await s.admit([win('w', 3)]);
      expect(refused.ok).toBe(false);
      if (refused.ok) return;
      expect(refused.failed).toBe(0);
      expect(refused.states[0]!.used).toBe(3);
      // An amount counts for the window and at most one bucket (1/60 of it) longer, never less.
      expect(refused.retryAfterMs).toBeGreaterThan(1000 - slack - 100);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(1000 + bucketMs(1000));
      if (slack === 0) {
        // With a fake clock, exactly: still refused a moment before retryAfterMs, admitted at it.
        await target.advance(refused.retryAfterMs - 1);
        expect((await s.admit([win('w', 3)])).ok).toBe(false);
        await target.advance(1);
      } else {
        await target.advance(1000 + bucketMs(1000) + slack);
      }
      const again = await s.admit([win('w', 3)]);
      expect(again.ok).toBe(true);
      expect(again.states[0]!.used).toBe(0);
    });

    if (slack === 0) {
      it('never lets more than the limit through in any stretch of windowMs (fake clock, irregular traffic)', async () => {
        const s = await make();
        const admitted: number[] = [];
        let t = 0;
        let seed = 7;
        const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
        for (let i = 0; i < 1500; i++) {
          const step = Math.floor(rand() * 40);
          await target.advance(step);
          t += step;
          if ((await s.admit([win('p', 20)])).ok) admitted.push(t);
        }
        for (let i = 0; i < admitted.length; i++) {
          let inWindow = 0;
          for (let j = i; j >= 0 && admitted[j]! > admitted[i]! - 1000; j--) inWindow++;
          expect(inWindow).toBeLessThanOrEqual(20);
        }
        // ~30 s of traffic at a limit of 20 per second: close to the ideal 600, not starved by the buckets.
        expect(admitted.length).toBeGreaterThan(500);
      });
    }

    it('window costs: a cost that would overshoot is refused, cost 0 only asks whether it is exhausted', async () => {
      const s = await make();
      expect((await s.admit([win('t', 10, 7)])).ok).toBe(true);
      expect((await s.admit([win('t', 10, 4)])).ok).toBe(false);
      expect((await s.admit([win('t', 10, 0)])).ok).toBe(true);
      expect((await s.admit([win('t', 10, 3)])).ok).toBe(true);
      const exhausted = await s.admit([win('t', 10, 0)]);
      expect(exhausted.ok).toBe(false);
      expect(exhausted.states[0]!.used).toBe(10);
    });

    it('all or nothing: when one check refuses, no other check is charged and no lease is taken', async () => {
      const s = await make();
      expect((await s.admit([win('full', 1)])).ok).toBe(true);
      const checks: AdmissionCheck[] = [win('free', 5), { kind: 'concurrency', key: 'conc', limit: 2, leaseMs: 60_000 }, win('full', 1)];
      const r = await s.admit(checks);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.failed).toBe(2);
      const states = await s.inspect(checks);
      expect(states.map((x) => x.used)).toEqual([0, 0, 1]);
    });

    it('retryAfterMs is the wait of the slowest refused check', async () => {
      const s = await make();
      expect((await s.admit([win('short', 1, 1, 1000)])).ok).toBe(true);
      expect((await s.admit([win('long', 1, 1, 5000)])).ok).toBe(true);
      const r = await s.admit([win('short', 1, 1, 1000), win('long', 1, 1, 5000)]);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.failed).toBe(0);
      expect(r.retryAfterMs).toBeGreaterThan(5000 - slack - 100);
      expect(r.retryAfterMs).toBeLessThanOrEqual(5000 + bucketMs(5000));
    });

    it('period counters: charged outside admit, refused at the limit, read back, reset after their TTL', async () => {
      const s = await make();
      const budget: AdmissionCheck = { kind: 'counter', key: 'spend', limit: 10 };
      expect((await s.admit([budget])).ok).toBe(true);
      await s.charge([{ kind: 'counter', key: 'spend', amount: 4.25, ttlMs: 1000 }]);
      // An existing counter keeps its expiry: this charge's ttl does not extend it.
      await s.charge([{ kind: 'counter', key: 'spend', amount: 6, ttlMs: 60_000 }]);
      expect(await s.readCounters(['spend', 'nothing'])).toEqual([10.25, 0]);
      const r = await s.admit([budget]);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.states[0]!.used).toBe(10.25);
        expect(r.retryAfterMs).toBeGreaterThan(0);
        expect(r.retryAfterMs).toBeLessThanOrEqual(1000);
      }
      await target.advance(1000 + slack);
      expect(await s.readCounters(['spend'])).toEqual([0]);
      expect((await s.admit([budget])).ok).toBe(true);
    });

    it('window charges count against later admissions (tokens debited when an answer ends)', async () => {
      const s = await make();
      await s.charge([{ kind: 'window', key: 'tpm', windowMs: 1000, amount: 90 }]);
      expect((await s.inspect([win('tpm', 100, 0)]))[0]!.used).toBe(90);
      expect((await s.admit([win('tpm', 100, 20)])).ok).toBe(false);
      await s.charge([{ kind: 'window', key: 'tpm', windowMs: 1000, amount: 15 }]);
      expect((await s.admit([win('tpm', 100, 0)])).ok).toBe(false);
    });

    it('concurrency leases: taken by admit, given back by release, and expiring by themselves', async () => {
      const s = await make();
      const conc: AdmissionCheck = { kind: 'concurrency', key: 'c', limit: 2, leaseMs: 500 };
      const a = await s.admit([conc]);
      const b = await s.admit([conc]);
      expect(a.ok && b.ok).toBe(true);
      if (!a.ok || !b.ok) return;
      expect(a.leases).toHaveLength(1);
      expect(a.leases[0]!.key).toBe('c');
      const refused = await s.admit([conc]);
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.retryAfterMs).toBeLessThanOrEqual(500);
      await s.release(a.leases);
      await s.release(a.leases); // twice is harmless
      expect((await s.inspect([conc]))[0]!.used).toBe(1);
      const c = await s.admit([conc]);
      expect(c.ok).toBe(true);
      // Leases of a crashed holder expire: both slots free again after leaseMs.
      await target.advance(500 + slack + 50);
      expect((await s.inspect([conc]))[0]!.used).toBe(0);
      expect((await s.admit([conc])).ok).toBe(true);
    });

    it('settle charges and gives back leases in one call', async () => {
      const s = await make();
      const conc: AdmissionCheck = { kind: 'concurrency', key: 'sc', limit: 1, leaseMs: 60_000 };
      const a = await s.admit([conc]);
      expect(a.ok).toBe(true);
      if (!a.ok) return;
      expect((await s.admit([conc])).ok).toBe(false);
      await s.settle(
        [
          { kind: 'window', key: 'stpm', windowMs: 1000, amount: 40 },
          { kind: 'counter', key: 'sspend', amount: 1500, ttlMs: 60_000 },
        ],
        a.leases,
      );
      expect((await s.inspect([conc, win('stpm', 100, 0)])).map((x) => x.used)).toEqual([0, 40]);
      expect(await s.readCounters(['sspend'])).toEqual([1500]);
      await s.settle([], []);
      expect((await s.admit([conc])).ok).toBe(true);
    });

    it('inspect charges nothing', async () => {
      const s = await make();
      for (let i = 0; i < 3; i++) await s.inspect([win('i', 1), { kind: 'concurrency', key: 'ic', limit: 1, leaseMs: 1000 }]);
      expect((await s.admit([win('i', 1), { kind: 'concurrency', key: 'ic', limit: 1, leaseMs: 1000 }])).ok).toBe(true);
    });
  });

  describe('records', () => {
    it('writes land whole or not at all, bump the version once, and keep the audit newest first', async () => {
      const s = await make();
      expect(await s.recordsVersion()).toBe(0);
      expect(await s.writeRecords([{ id: 'key:a', value: 'A1', expect: null }, { id: 'team:t', value: 'T1' }], 'audit-1')).toEqual({ ok: true, version: 1 });
      // A create of an existing id fails, and the other write of the call does not land either.
      expect(await s.writeRecords([{ id: 'team:u', value: 'U1' }, { id: 'key:a', value: 'A2', expect: null }], 'audit-x')).toEqual({ ok: false, failed: 1, current: 'A1' });
      // An update of a value that moved meanwhile fails.
      expect(await s.writeRecords([{ id: 'key:a', value: 'A2', expect: 'stale' }], 'audit-y')).toEqual({ ok: false, failed: 0, current: 'A1' });
      expect(await s.writeRecords([{ id: 'key:a', value: 'A2', expect: 'A1' }], 'audit-2')).toEqual({ ok: true, version: 2 });
      const snap = await s.readRecords();
      expect(snap.version).toBe(2);
      expect([...snap.records.entries()].sort()).toEqual([['key:a', 'A2'], ['team:t', 'T1']]);
      expect(await s.writeRecords([{ id: 'key:a', value: null, expect: 'A2' }], 'audit-3')).toEqual({ ok: true, version: 3 });
      expect(await s.writeRecords([{ id: 'key:a', value: null, expect: 'A2' }], 'audit-4')).toEqual({ ok: false, failed: 0, current: null });
      expect([...(await s.readRecords()).records.keys()]).toEqual(['team:t']);
      expect(await s.recordsVersion()).toBe(3);
      expect(await s.readAudit(2)).toEqual(['audit-3', 'audit-2']);
      expect(await s.readAudit(10)).toEqual(['audit-3', 'audit-2', 'audit-1']);
    });

    it('says what changed after a version: each touched id once, with its value now', async () => {
      const s = await make();
      const entries = (c: Awaited<ReturnType<StateStore['readRecordChanges']>>) => (c === undefined ? undefined : { version: c.version, changes: [...c.changes.entries()].sort() });
      expect(entries(await s.readRecordChanges(0))).toEqual({ version: 0, changes: [] });
      await s.writeRecords([{ id: 'key:a', value: 'A1', expect: null }, { id: 'team:t', value: 'T1' }], 'a1');
      await s.writeRecords([{ id: 'key:b', value: 'B1', expect: null }], 'a2');
      // A refused write changes nothing and is no change.
      await s.writeRecords([{ id: 'key:b', value: 'B2', expect: null }], 'ax');
      await s.writeRecords([{ id: 'key:a', value: 'A2', expect: 'A1' }], 'a3');
      await s.writeRecords([{ id: 'key:b', value: null, expect: 'B1' }], 'a4');
      expect(entries(await s.readRecordChanges(0))).toEqual({ version: 4, changes: [['key:a', 'A2'], ['key:b', null], ['team:t', 'T1']] });
      expect(entries(await s.readRecordChanges(2))).toEqual({ version: 4, changes: [['key:a', 'A2'], ['key:b', null]] });
      expect(entries(await s.readRecordChanges(3))).toEqual({ version: 4, changes: [['key:b', null]] });
      expect(entries(await s.readRecordChanges(4))).toEqual({ version: 4, changes: [] });
      // Ahead of the store (it was reset, say): it cannot say; the caller reads everything.
      expect(await s.readRecordChanges(5)).toBeUndefined();
      expect(await s.readRecordChanges(-1)).toBeUndefined();
    });

    it('keeps only the newest audit entries and change list', async () => {
      const s = await make();
      const n = Math.max(AUDIT_KEEP, RECORD_CHANGES_KEEP) + 5;
      for (let i = 0; i < n; i++) await s.writeRecords([{ id: i % 2 === 0 ? 'x' : 'y', value: String(i) }], `e${i}`);
      const all = await s.readAudit(AUDIT_KEEP + 100);
      expect(all.length).toBe(AUDIT_KEEP);
      expect(all[0]).toBe(`e${n - 1}`);
      expect(all.at(-1)).toBe(`e${n - AUDIT_KEEP}`);
      // Older than the change list: undefined; the oldest version it still covers: the changes.
      expect(await s.readRecordChanges(n - RECORD_CHANGES_KEEP - 1)).toBeUndefined();
      const oldest = await s.readRecordChanges(n - RECORD_CHANGES_KEEP);
      expect(oldest && [...oldest.changes.entries()].sort()).toEqual([['x', String(n - 1 - ((n - 1) % 2))], ['y', String(n - 1 - (n % 2))]]);
      expect([...(await s.readRecordChanges(n - 1))!.changes.entries()]).toEqual([[(n - 1) % 2 === 0 ? 'x' : 'y', String(n - 1)]]);
    }, 60_000);
  });

  describe('broadcast', () => {
    it('delivers published messages to every subscriber of the channel, and stops after unsubscribe', async () => {
      const s = await make();
      const got: string[] = [];
      const other: string[] = [];
      const off = s.subscribe('circuit', (m) => got.push(m));
      s.subscribe('elsewhere', (m) => other.push(m));
      // A subscription may take a moment to be effective (Redis): publish until the first arrives.
      const deadline = Date.now() + 5000;
      while (got.length === 0 && Date.now() < deadline) {
        await s.publish('circuit', 'probe');
        await new Promise((r) => setTimeout(r, 50));
      }
      await s.publish('circuit', 'open:a/b');
      await waitFor(() => got.includes('open:a/b'));
      expect(other).toEqual([]);
      off();
      await s.publish('circuit', 'after');
      await new Promise((r) => setTimeout(r, 200));
      expect(got).not.toContain('after');
    });
  });

  if (target.shared) {
    const shared = target.shared;
    describe('several OS processes', () => {
      it('admits exactly 100 of 300 racing attempts from 4 processes on one window of limit 100', async () => {
        const s = await make();
        const [backend, location, prefix] = shared();
        const startAt = Date.now() + 1500;
        const results = (await Promise.all(
          [75, 75, 75, 75].map((n) => runWorker([backend, location, prefix, 'race', String(n), String(startAt)])),
        )) as { admitted: number }[];
        const admitted = results.reduce((sum, r) => sum + r.admitted, 0);
        expect(admitted).toBe(100);
        expect((await s.inspect([{ kind: 'window', key: 'race', windowMs: 60_000, limit: 100, cost: 0 }]))[0]!.used).toBe(100);
      }, 60_000);

      it('sees documents and broadcasts from another process', async () => {
        const s = await make();
        const [backend, location, prefix] = shared();
        const got: string[] = [];
        s.subscribe('circuit', (m) => got.push(m));
        await new Promise((r) => setTimeout(r, 200));
        await runWorker([backend, location, prefix, 'put', 'from-child', 'hello']);
        expect(text(await s.getDoc('docs', 'from-child', 'owner-a'))).toBe('hello');
        expect(await s.getDoc('docs', 'from-child', 'owner-b')).toBeUndefined();
        await runWorker([backend, location, prefix, 'publish', 'circuit', 'open:x/y']);
        await waitFor(() => got.includes('open:x/y'));
      }, 60_000);
    });
  }
}

export async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
