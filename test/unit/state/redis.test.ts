import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStateStore } from '../../../src/state/redis-store.js';
import { StateUnavailableError } from '../../../src/state/types.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { requireTools } from '../../support/required-tools.js';
import { stateStoreContract } from './contract.js';

requireTools('redis-server');

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

let lastPrefix = '';

describe('redis state store', () => {
  stateStoreContract({
    make: async (options) => {
      // A fresh key prefix per test keeps them apart on one server, as it keeps instances' tenants apart.
      lastPrefix = `t${randomBytes(4).toString('hex')}:`;
      return new RedisStateStore({ ...options, url: redis.url, keyPrefix: lastPrefix });
    },
    advance: (ms) => new Promise((r) => setTimeout(r, ms)),
    slackMs: 150,
    shared: () => ['redis', redis.url, lastPrefix],
  });

  it('keeps key prefixes apart on one server', async () => {
    const a = new RedisStateStore({ url: redis.url, keyPrefix: 'tenant-a:' });
    const b = new RedisStateStore({ url: redis.url, keyPrefix: 'tenant-b:' });
    try {
      await a.putDoc('docs', 'x', 'alice', Buffer.from('a'), 60_000);
      expect(await b.getDoc('docs', 'x', 'alice')).toBeUndefined();
      await a.charge([{ kind: 'counter', key: 'spend', amount: 2, ttlMs: 60_000 }]);
      expect(await b.readCounters(['spend'])).toEqual([0]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('fails fast with StateUnavailableError while Redis is down, and recovers by itself when it returns', async () => {
    const failedOps: string[] = [];
    const store = new RedisStateStore({ url: redis.url, keyPrefix: 'outage:', opTimeoutMs: 1000, onError: (op) => failedOps.push(op) });
    try {
      await store.putDoc('docs', 'before', 'alice', Buffer.from('x'), 60_000);
      await redis.kill();
      for (const call of [
        () => store.getDoc('docs', 'before', 'alice'),
        () => store.admit([{ kind: 'window', key: 'w', windowMs: 1000, limit: 5, cost: 1 }]),
        () => store.ping(),
      ]) {
        const started = Date.now();
        const err = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StateUnavailableError);
        expect((err as Error).message).toMatch(/state store unavailable \(redis at redis:\/\/127\.0\.0\.1:\d+/);
        expect(Date.now() - started).toBeLessThan(2500);
      }
      // Each failure reached the hook that feeds switchyard_state_errors_total{op}.
      expect(failedOps).toEqual(['get', 'admit', 'ping']);
      await redis.start();
      // The server came back empty (no persistence): what matters is that calls work again unaided.
      const deadline = Date.now() + 10_000;
      let recovered = false;
      while (!recovered && Date.now() < deadline) {
        recovered = await store.ping().then(
          () => true,
          () => false,
        );
        if (!recovered) await new Promise((r) => setTimeout(r, 100));
      }
      expect(recovered).toBe(true);
      expect((await store.admit([{ kind: 'window', key: 'w', windowMs: 1000, limit: 5, cost: 1 }])).ok).toBe(true);
      await store.putDoc('docs', 'after', 'alice', Buffer.from('y'), 60_000);
      expect(Buffer.from((await store.getDoc('docs', 'after', 'alice'))!).toString()).toBe('y');
    } finally {
      await store.close();
    }
  }, 30_000);

  it('rejects quickly at start-up when nothing listens', async () => {
    const store = new RedisStateStore({ url: 'redis://127.0.0.1:1', opTimeoutMs: 500 });
    const started = Date.now();
    try {
      await expect(store.ping()).rejects.toThrow(/state store unavailable \(redis at redis:\/\/127\.0\.0\.1:1\/?, ping\)/);
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await store.close();
    }
  });
});

describe('redis limit calls', () => {
  it('sends the calls made in one event-loop turn as one script call, evaluated in order and exactly', async () => {
    const prefix = `b${randomBytes(4).toString('hex')}:`;
    const store = new RedisStateStore({ url: redis.url, keyPrefix: prefix });
    const monitor = new Redis(redis.url);
    try {
      await store.ping();
      const before = await evalshaCalls(monitor);
      const check = { kind: 'window', key: 'rpm', windowMs: 60_000, limit: 70, cost: 1 } as const;
      const results = await Promise.all(Array.from({ length: 100 }, () => store.admit([check])));
      expect(results.map((r) => r.ok)).toEqual([...Array(70).fill(true), ...Array(30).fill(false)]);
      expect(results.map((r) => r.states[0]!.used)).toEqual([...Array.from({ length: 70 }, (_, i) => i), ...Array(30).fill(70)]);
      expect((await evalshaCalls(monitor)) - before).toBe(1);
      const lease = { kind: 'concurrency', key: 'conc', limit: 1, leaseMs: 60_000 } as const;
      const first = await store.admit([lease]);
      expect(first.ok).toBe(true);
      // The settle is made first, so the admission in the same script call finds the lease given back.
      const [, second] = await Promise.all([store.settle([{ kind: 'counter', key: 'spend', amount: 0.25, ttlMs: 60_000 }], first.ok ? first.leases : []), store.admit([lease])]);
      expect(second!.ok).toBe(true);
      expect(await store.readCounters(['spend'])).toEqual([0.25]);
    } finally {
      monitor.disconnect();
      await store.close();
    }
  });

  it('counts leases, tokens and spend exactly when one script call carries many calls on the same keys', async () => {
    const store = new RedisStateStore({ url: redis.url, keyPrefix: `m${randomBytes(4).toString('hex')}:` });
    const monitor = new Redis(redis.url);
    try {
      await store.ping();
      const conc = { kind: 'concurrency', key: 'c', limit: 3, leaseMs: 60_000 } as const;
      const tpm = { kind: 'window', key: 'tpm', windowMs: 60_000, limit: 250, cost: 0 } as const;
      const budget = { kind: 'counter', key: 'spend', limit: 10 } as const;
      const before = await evalshaCalls(monitor);
      const first = await Promise.all(Array.from({ length: 5 }, () => store.admit([conc, tpm, budget])));
      expect(first.map((r) => r.ok)).toEqual([true, true, true, false, false]);
      expect(first.map((r) => r.states[0]!.used)).toEqual([0, 1, 2, 3, 3]);
      const leases = first.flatMap((r) => (r.ok ? r.leases : []));
      // In one turn: two settles (each gives a lease back and charges 100 tokens and 4 of spend), then
      // three admissions: two find a free slot; the third finds the tokens (200) and spend (8) of both.
      const settle = (i: number) =>
        store.settle(
          [
            { kind: 'window', key: 'tpm', windowMs: 60_000, amount: 100 },
            { kind: 'counter', key: 'spend', amount: 4, ttlMs: 60_000 },
          ],
          [leases[i]!],
        );
      const [, , a, b, c] = await Promise.all([settle(0), settle(1), store.admit([conc, tpm, budget]), store.admit([conc, tpm, budget]), store.admit([conc, tpm, budget])]);
      expect([a!.ok, b!.ok, c!.ok]).toEqual([true, true, false]);
      expect(c!.states.map((x) => x.used)).toEqual([3, 200, 8]);
      expect((await evalshaCalls(monitor)) - before).toBe(2);
      // What was written back at the end of those script calls is what a fresh reader sees.
      expect((await store.inspect([conc, tpm])).map((x) => x.used)).toEqual([3, 200]);
      expect(await store.readCounters(['spend'])).toEqual([8]);
    } finally {
      monitor.disconnect();
      await store.close();
    }
  });

  it('calls of different shapes sharing keys in one script call: each lease id lands in its own set', async () => {
    const store = new RedisStateStore({ url: redis.url, keyPrefix: `h${randomBytes(4).toString('hex')}:` });
    const monitor = new Redis(redis.url);
    try {
      await store.ping();
      const rpm = { kind: 'window', key: 'rpm', windowMs: 60_000, limit: 100, cost: 1 } as const;
      const mine = { kind: 'concurrency', key: 'key', limit: 3, leaseMs: 60_000 } as const;
      const team = { kind: 'concurrency', key: 'team', limit: 1, leaseMs: 60_000 } as const;
      const keyAndTeam = [rpm, mine, team];
      const before = await evalshaCalls(monitor);
      // One turn: the same list twice (one shape), a list sharing two of its keys, and an inspect.
      const [a, b, c, seen] = await Promise.all([store.admit(keyAndTeam), store.admit(keyAndTeam), store.admit([rpm, mine]), store.inspect([mine, team, rpm])]);
      expect((await evalshaCalls(monitor)) - before).toBe(1);
      expect([a.ok, b.ok, c.ok]).toEqual([true, false, true]);
      expect(b.ok ? undefined : b.failed).toBe(2);
      expect(seen.map((x) => x.used)).toEqual([2, 1, 2]);
      expect(a.ok && a.leases.map((l) => l.key)).toEqual(['key', 'team']);
      // Giving back the first admission's leases frees one slot of each set, no more.
      await store.release(a.ok ? a.leases : []);
      expect((await store.inspect([mine, team])).map((x) => x.used)).toEqual([1, 0]);
      await store.release(c.ok ? c.leases : []);
      expect((await store.inspect([mine, team])).map((x) => x.used)).toEqual([0, 0]);
    } finally {
      monitor.disconnect();
      await store.close();
    }
  });

  it('a settle travels with the next limit call, so the next inspect and counter read see it', async () => {
    const store = new RedisStateStore({ url: redis.url, keyPrefix: `s${randomBytes(4).toString('hex')}:` });
    const monitor = new Redis(redis.url);
    try {
      await store.ping();
      const conc = { kind: 'concurrency', key: 'c', limit: 1, leaseMs: 60_000 } as const;
      const tpm = { kind: 'window', key: 'tpm', windowMs: 60_000, limit: 1000, cost: 0 } as const;
      const a = await store.admit([conc, tpm]);
      expect(a.ok).toBe(true);
      const before = await evalshaCalls(monitor);
      // Not awaited: the settle waits for a call to travel with; the inspect made after it is that call.
      const settled = store.settle(
        [
          { kind: 'window', key: 'tpm', windowMs: 60_000, amount: 120 },
          { kind: 'counter', key: 'spend', amount: 1.5, ttlMs: 60_000 },
        ],
        a.ok ? a.leases : [],
      );
      const [states, counters] = await Promise.all([store.inspect([conc, tpm]), store.readCounters(['spend'])]);
      await settled;
      expect(states.map((x) => x.used)).toEqual([0, 120]);
      expect(counters).toEqual([1.5]);
      expect((await evalshaCalls(monitor)) - before).toBe(1);
    } finally {
      monitor.disconnect();
      await store.close();
    }
  });

  it('a settle on a quiet store goes by itself at once', async () => {
    const prefix = `q${randomBytes(4).toString('hex')}:`;
    const store = new RedisStateStore({ url: redis.url, keyPrefix: prefix });
    const other = new RedisStateStore({ url: redis.url, keyPrefix: prefix });
    try {
      await store.ping();
      const started = Date.now();
      await store.settle([{ kind: 'counter', key: 'spend', amount: 2, ttlMs: 60_000 }], []);
      expect(Date.now() - started).toBeLessThan(500);
      expect(await other.readCounters(['spend'])).toEqual([2]);
    } finally {
      await Promise.all([store.close(), other.close()]);
    }
  });

  it('close sends the settles still waiting before it disconnects', async () => {
    const prefix = `x${randomBytes(4).toString('hex')}:`;
    const store = new RedisStateStore({ url: redis.url, keyPrefix: prefix });
    const other = new RedisStateStore({ url: redis.url, keyPrefix: prefix });
    try {
      const conc = { kind: 'concurrency', key: 'c', limit: 1, leaseMs: 60_000 } as const;
      const a = await store.admit([conc]);
      expect(a.ok).toBe(true);
      const settled = store.settle([{ kind: 'counter', key: 'spend', amount: 3, ttlMs: 60_000 }], a.ok ? a.leases : []);
      await store.close();
      await settled;
      expect(await other.readCounters(['spend'])).toEqual([3]);
      expect((await other.inspect([conc]))[0]!.used).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('a call that fails in a batch fails alone; a failing settle has given its leases back first', async () => {
    const prefix = `e${randomBytes(4).toString('hex')}:`;
    const store = new RedisStateStore({ url: redis.url, keyPrefix: prefix });
    const admin = new Redis(redis.url);
    try {
      const conc = { kind: 'concurrency', key: 'c', limit: 1, leaseMs: 60_000 } as const;
      const a = await store.admit([conc]);
      expect(a.ok).toBe(true);
      // A counter key holding something INCRBYFLOAT refuses: that settle's charge fails in the script.
      await admin.set(`${prefix}c:spend`, 'not a number');
      const rpm = { kind: 'window', key: 'rpm', windowMs: 60_000, limit: 5, cost: 1 } as const;
      const [settled, admitted] = await Promise.allSettled([
        store.settle([{ kind: 'counter', key: 'spend', amount: 1, ttlMs: 60_000 }], a.ok ? a.leases : []),
        store.admit([rpm]),
      ]);
      expect(settled.status).toBe('rejected');
      expect(((settled as PromiseRejectedResult).reason as Error).message).toMatch(/state store unavailable .*charge.*not a number/);
      expect(admitted.status === 'fulfilled' && admitted.value.ok).toBe(true);
      expect((await store.inspect([conc]))[0]!.used).toBe(0);
      // Redis's own refusal (a lease key of the wrong type) fails that admission alone, with Redis's words.
      await admin.set(`${prefix}l:broken`, 'a string');
      const [broken, fine] = await Promise.allSettled([store.admit([{ kind: 'concurrency', key: 'broken', limit: 1, leaseMs: 1000 }]), store.admit([rpm])]);
      expect(broken.status).toBe('rejected');
      expect(((broken as PromiseRejectedResult).reason as Error).message).toMatch(/state store unavailable .*admit.*WRONGTYPE/);
      expect(fine.status === 'fulfilled' && fine.value.ok && fine.value.states[0]!.used).toBe(1);
    } finally {
      admin.disconnect();
      await store.close();
    }
  });

  it('keeps a window as packed [bucket, amount] doubles with the expiry of its last bucket, whether written whole or in place', async () => {
    const prefix = `w${randomBytes(4).toString('hex')}:`;
    const store = new RedisStateStore({ url: redis.url, keyPrefix: prefix });
    const admin = new Redis(redis.url);
    try {
      const windowMs = 60_000;
      const rpm = { kind: 'window', key: 'rpm', windowMs, limit: 100, cost: 1 } as const;
      // Starting just after a bucket begins, so the three admissions share it: the first writes the
      // string whole (SET with PX), the next two only the last amount (SETRANGE), in separate script calls.
      const width = windowMs / 60;
      const [sec, usec] = await admin.time();
      const serverNow = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
      await new Promise((r) => setTimeout(r, width - (serverNow % width) + 20));
      for (let i = 0; i < 3; i++) expect((await store.admit([rpm])).ok).toBe(true);
      const raw = await admin.getBuffer(`${prefix}wp:rpm`);
      expect(raw!.length).toBe(16);
      const bucket = raw!.readDoubleLE(0);
      expect(raw!.readDoubleLE(8)).toBe(3);
      // The expiry is the last bucket's: (bucket + 1) * width - 1 + windowMs, in the server's clock.
      const [s2, u2] = await admin.time();
      const now2 = Number(s2) * 1000 + Math.floor(Number(u2) / 1000);
      const expected = (bucket + 1) * width - 1 + windowMs - now2;
      const pttl = await admin.pttl(`${prefix}wp:rpm`);
      expect(Math.abs(pttl - expected)).toBeLessThan(50);
      expect((await store.inspect([rpm]))[0]!.used).toBe(3);
    } finally {
      admin.disconnect();
      await store.close();
    }
  });

  it('loads its scripts again after the server forgot them (SCRIPT FLUSH)', async () => {
    const store = new RedisStateStore({ url: redis.url, keyPrefix: `f${randomBytes(4).toString('hex')}:` });
    const admin = new Redis(redis.url);
    try {
      const check = { kind: 'window', key: 'rpm', windowMs: 60_000, limit: 5, cost: 1 } as const;
      expect((await store.admit([check])).ok).toBe(true);
      await admin.script('FLUSH');
      const again = await store.admit([check]);
      expect(again.ok).toBe(true);
      expect(again.states[0]!.used).toBe(1);
    } finally {
      admin.disconnect();
      await store.close();
    }
  });
});

async function evalshaCalls(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}
