import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStateStore } from '../../../src/state/file-store.js';
import { StateUnavailableError } from '../../../src/state/types.js';
import { stateStoreContract } from './contract.js';

const root = mkdtempSync(join(tmpdir(), 'switchyard-state-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let seq = 0;
let lastDir = '';
let now = Date.now();

describe('file (LMDB) state store', () => {
  stateStoreContract({
    make: async (options) => {
      lastDir = join(root, `s${++seq}`);
      return new FileStateStore({ ...options, path: lastDir, now: () => now });
    },
    advance: async (ms) => {
      now += ms;
    },
    slackMs: 0,
    // Child processes read the real clock; the window in the race is a minute long, so they agree.
    shared: () => ['file', lastDir, ''],
  });

  it('keeps documents and counters across a restart', async () => {
    const dir = join(root, 'restart');
    const first = new FileStateStore({ path: dir });
    await first.putDoc('docs', 'kept', 'alice', Buffer.from('still here'), 60_000);
    await first.charge([{ kind: 'counter', key: 'spend', amount: 3, ttlMs: 60_000 }]);
    await first.close();
    const second = new FileStateStore({ path: dir });
    try {
      expect(Buffer.from((await second.getDoc('docs', 'kept', 'alice'))!).toString()).toBe('still here');
      expect(await second.readCounters(['spend'])).toEqual([3]);
    } finally {
      await second.close();
    }
  });
});

describe('file (LMDB) read freshness', () => {
  it('sees a write another process committed within the same event-loop turn', async () => {
    const dir = join(root, 'fresh');
    const store = new FileStateStore({ path: dir });
    try {
      expect(await store.getDoc('docs', 'x', 'owner-a')).toBeUndefined();
      // A synchronous child: no turn of our event loop passes between its commit and our read.
      const worker = fileURLToPath(new URL('./race-worker.ts', import.meta.url));
      execFileSync(process.execPath, ['--import', 'tsx', worker, 'file', dir, '', 'put', 'x', 'hello'], { timeout: 20_000 });
      expect(Buffer.from((await store.getDoc('docs', 'x', 'owner-a'))!).toString()).toBe('hello');
    } finally {
      await store.close();
    }
  });
});

describe('file (LMDB) across processes', () => {
  it('a process opening the store does not pull the file from under one that grew it', async () => {
    // A worker restarted (or started late) while the others are serving: with a write map LMDB cut the
    // file back to the opener's map size, and the next write of a process with a larger map hit a page
    // past the end of the file (SIGBUS).
    const dir = join(root, 'grown');
    const worker = fileURLToPath(new URL('./race-worker.ts', import.meta.url));
    const grower = spawn(process.execPath, ['--import', 'tsx', worker, 'file', dir, '', 'grow', '300', '8000'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    grower.stdout.on('data', (d) => (out += d));
    grower.stderr.on('data', (d) => (err += d));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => grower.once('exit', (code, signal) => resolve({ code, signal })));
    const timer = setTimeout(() => grower.kill('SIGKILL'), 40_000);
    try {
      await Promise.race([
        new Promise<void>((resolve) => grower.stdout.on('data', () => out.includes('grown') && resolve())),
        exited.then((e) => Promise.reject(new Error(`grower ended early: ${JSON.stringify(e)} ${err}`))),
      ]);
      // ~2.4 MB in, then another process opens the same store and writes a little.
      execFileSync(process.execPath, ['--import', 'tsx', worker, 'file', dir, '', 'put', 'late', 'hello'], { timeout: 20_000 });
      grower.stdin.end('go\n');
      expect(await exited, err).toEqual({ code: 0, signal: null });
      expect(JSON.parse(out.slice(out.indexOf('{')))).toEqual({ wrote: 600, firstBack: 8000 });
    } finally {
      clearTimeout(timer);
    }
    const store = new FileStateStore({ path: dir });
    try {
      expect(Buffer.from((await store.getDoc('docs', 'late', 'owner-a'))!).toString()).toBe('hello');
      expect((await store.getDoc('docs', 'second-299', 'owner-a'))?.byteLength).toBe(8000);
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('file (LMDB) batched limit calls', () => {
  it('evaluates the calls of one turn in arrival order, exactly, in a shared transaction', async () => {
    const dir = join(root, 'batch');
    const store = new FileStateStore({ path: dir });
    try {
      const check = { kind: 'window', key: 'rpm', windowMs: 60_000, limit: 10, cost: 1 } as const;
      const lease = { kind: 'concurrency', key: 'conc', limit: 3, leaseMs: 60_000 } as const;
      // 30 admits issued in one turn: the first runs at once, the other 29 share one transaction.
      const results = await Promise.all(Array.from({ length: 30 }, () => store.admit([check])));
      expect(results.map((r) => r.ok)).toEqual([...Array(10).fill(true), ...Array(20).fill(false)]);
      expect(results.map((r) => r.states[0]!.used)).toEqual([...Array.from({ length: 10 }, (_, i) => i), ...Array(20).fill(10)]);
      // Leases taken and given back within one batch see each other.
      const [a, b, c, d] = await Promise.all([store.admit([lease]), store.admit([lease]), store.admit([lease]), store.admit([lease])]);
      expect([a, b, c, d].map((r) => r!.ok)).toEqual([true, true, true, false]);
      const leases = a!.ok ? a!.leases : [];
      const [, after] = await Promise.all([store.settle([{ kind: 'counter', key: 'spend', amount: 5, ttlMs: 60_000 }], leases), store.admit([lease])]);
      expect(after!.ok).toBe(true);
      expect(await store.readCounters(['spend'])).toEqual([5]);
    } finally {
      await store.close();
    }
  });

  it('commits calls still waiting for their turn when the store closes', async () => {
    const dir = join(root, 'batch-close');
    const store = new FileStateStore({ path: dir });
    const charge = { kind: 'counter', key: 'spend', amount: 2, ttlMs: 60_000 } as const;
    const first = store.charge([charge]);
    const second = store.charge([charge]); // queued behind the first of the turn
    await store.close();
    await Promise.all([first, second]);
    const reopened = new FileStateStore({ path: dir });
    try {
      expect(await reopened.readCounters(['spend'])).toEqual([4]);
    } finally {
      await reopened.close();
    }
  });
});

describe('file (LMDB) opening', () => {
  it('a directory that cannot be made fails each call as unavailable, and the next call tries again', async () => {
    const dir = join(root, 'blocked');
    writeFileSync(dir, 'a file where the directory should be');
    const errors: string[] = [];
    const store = new FileStateStore({ path: dir, onError: (op) => errors.push(op) });
    try {
      const ping = await store.ping().catch((e: unknown) => e);
      expect(ping).toBeInstanceOf(StateUnavailableError);
      expect((ping as Error).message).toMatch(/^state store unavailable \(file, ping\): EEXIST/);
      const check = { kind: 'window', key: 'w', windowMs: 60_000, limit: 5, cost: 1 } as const;
      const [a, b] = await Promise.allSettled([store.admit([check]), store.admit([check])]);
      expect([a, b].map((r) => r.status === 'rejected' && r.reason instanceof StateUnavailableError && r.reason.op)).toEqual(['admit', 'admit']);
      await expect(store.getDoc('docs', 'x', 'o')).rejects.toThrow(/unavailable \(file, get\)/);
      expect(errors).toEqual(['ping', 'admit', 'admit', 'get']);

      rmSync(dir); // fixed: the next call opens it
      expect((await store.admit([check])).ok).toBe(true);
      await store.ping();
    } finally {
      await store.close();
    }
  });

  it('a subscription made before the database is open hears what is published after it, not before', async () => {
    const dir = join(root, 'early-subscriber');
    let clock = 1_000;
    const now = () => clock;
    const earlier = new FileStateStore({ path: dir, now });
    await earlier.publish('ch', 'old news');
    clock = 2_000;
    const other = new FileStateStore({ path: dir, now }); // another process, already open
    await other.ping();
    const store = new FileStateStore({ path: dir, now, pollMs: 5 });
    try {
      const heard: string[] = [];
      const unsubscribe = store.subscribe('ch', (m) => heard.push(m)); // same turn as the constructor
      // Committed synchronously, in this turn: after the subscription, before this store's open (which
      // takes at least a turn) has read the channel.
      await other.publish('ch', 'while opening');
      await store.publish('ch', 'news');
      const until = Date.now() + 5_000;
      while (heard.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 30)); // a few more polls: nothing else arrives
      expect(heard).toEqual(['while opening', 'news']);
      unsubscribe();
    } finally {
      await Promise.all([store.close(), other.close(), earlier.close()]);
    }
  });

  it('a store closed before its database opened still commits the limit calls it accepted', async () => {
    const dir = join(root, 'close-while-opening');
    const store = new FileStateStore({ path: dir });
    const charge = { kind: 'counter', key: 'spend', amount: 1, ttlMs: 60_000 } as const;
    const accepted = [store.charge([charge]), store.charge([charge]), store.charge([charge])];
    await store.close();
    await Promise.all(accepted);
    await expect(store.charge([charge])).rejects.toThrow(/closed/);
    const reopened = new FileStateStore({ path: dir });
    try {
      expect(await reopened.readCounters(['spend'])).toEqual([3]);
    } finally {
      await reopened.close();
    }
  });
});

describe('file (LMDB) sweep of dead limit records', () => {
  it('removes expired counters and windows and lapsed lease records, now and then, and keeps live ones', async () => {
    let t = Date.parse('2026-11-26T00:00:00Z');
    const dir = join(root, 'sweep');
    const store = new FileStateStore({ path: dir, now: () => t });
    const raw = () => (store as unknown as { db: { get(k: string): unknown } }).db;
    try {
      await store.charge([
        { kind: 'counter', key: 'spend:d2026-11-26', amount: 5, ttlMs: 24 * 3600_000 },
        { kind: 'window', key: 'rpm', windowMs: 60_000, amount: 1 },
        { kind: 'counter', key: 'spend:m2026-11', amount: 5, ttlMs: 30 * 24 * 3600_000 },
      ]);
      const admitted = await store.admit([{ kind: 'concurrency', key: 'conc', limit: 2, leaseMs: 60_000 }]);
      expect(admitted.ok).toBe(true);
      for (const k of ['c\0spend:d2026-11-26', 'w\0rpm', 'l\0conc', 'c\0spend:m2026-11']) expect(raw().get(k), k).toBeDefined();

      // Two days later (the day counter, the window and the lease are dead), a limit call sweeps.
      t += 2 * 24 * 3600_000;
      await store.charge([{ kind: 'counter', key: 'other', amount: 1, ttlMs: 60_000 }]);
      for (const k of ['c\0spend:d2026-11-26', 'w\0rpm', 'l\0conc']) expect(raw().get(k), k).toBeUndefined();
      expect(raw().get('c\0spend:m2026-11')).toBeDefined();
      expect(await store.readCounters(['spend:m2026-11', 'other'])).toEqual([5, 1]);
    } finally {
      await store.close();
    }
  });
});
