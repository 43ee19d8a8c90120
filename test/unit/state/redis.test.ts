import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStateStore } from '../../../src/state/redis-store.js';
import { StateUnavailableError } from '../../../src/state/types.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { stateStoreContract } from './contract.js';

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
