// The redis backend on a real three-node Redis Cluster (state.url redis+cluster://…): the same
// StateStore contract as on one server, and the hash tags that make it work (every script's keys in
// one slot: a namespace's documents and claims under `{<ns>}`, all limit keys under `{l}`).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStateStore } from '../../../src/state/redis-store.js';
import { clusterSeeds, redactUrl } from '../../../src/state/redis-url.js';
import { startRedisCluster, type RedisCluster } from '../../support/redis-cluster.js';
import { requireTools } from '../../support/required-tools.js';
import { stateStoreContract } from './contract.js';

requireTools('redis-server', 'redis-cli');

let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await startRedisCluster(3);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

let lastPrefix = '';

describe('redis state store on a Redis Cluster', () => {
  stateStoreContract({
    make: async (options) => {
      lastPrefix = `c${randomBytes(4).toString('hex')}:`;
      return new RedisStateStore({ ...options, url: cluster.url, keyPrefix: lastPrefix });
    },
    advance: (ms) => new Promise((r) => setTimeout(r, ms)),
    slackMs: 150,
    shared: () => ['redis', cluster.url, lastPrefix],
  });

  it('puts a namespace in one slot and the limits in another, with keys on the nodes that own them', async () => {
    const prefix = `slots${randomBytes(3).toString('hex')}:`;
    const store = new RedisStateStore({ url: cluster.url, keyPrefix: prefix });
    try {
      await store.putDoc('responses', 'resp_1', 'alice', Buffer.from('one'), 60_000);
      await store.putDoc('responses', 'item:msg_1', 'alice', Buffer.from('two'), 60_000);
      await store.claim('responses', ['r:resp_1', 'i:msg_1'], 'alice', 60_000);
      const admitted = await store.admit([
        { kind: 'window', key: 'key:alice:rpm', windowMs: 60_000, limit: 5, cost: 1 },
        { kind: 'concurrency', key: 'key:alice:concurrency', limit: 2, leaseMs: 60_000 },
        { kind: 'counter', key: 'team:ops:spend', limit: 100 },
      ]);
      expect(admitted.ok).toBe(true);
      await store.charge([{ kind: 'counter', key: 'team:ops:spend', amount: 3, ttlMs: 60_000 }]);
      expect(await store.readCounters(['team:ops:spend'])).toEqual([3]);
      expect(await store.claimOwners('responses', ['r:resp_1', 'i:msg_1', 'r:nope'])).toEqual(['alice', 'alice', undefined]);

      // Every key of ours, from the node that holds it, with its slot.
      const slotsOf = new Map<string, number>();
      for (const port of cluster.ports) {
        const keys = (await cluster.cli(port, '--scan', '--pattern', `${prefix}*`)).split('\n').filter(Boolean);
        for (const k of keys) slotsOf.set(k, Number((await cluster.cli(port, 'cluster', 'keyslot', k)).trim()));
      }
      const ns = [...slotsOf].filter(([k]) => k.startsWith(`${prefix}{responses}:`));
      const limits = [...slotsOf].filter(([k]) => k.startsWith(`${prefix}{l}:`));
      // Documents, their order/size/meta keys and the claims: one slot.
      expect(ns.length).toBeGreaterThanOrEqual(6);
      expect(new Set(ns.map(([, s]) => s)).size).toBe(1);
      expect(limits.length).toBe(3);
      expect(new Set(limits.map(([, s]) => s)).size).toBe(1);
      expect([...slotsOf.keys()].every((k) => k.startsWith(`${prefix}{responses}:`) || k.startsWith(`${prefix}{l}:`))).toBe(true);
      expect(Buffer.from((await store.getDoc('responses', 'resp_1', 'alice'))!).toString()).toBe('one');
    } finally {
      await store.close();
    }
  });

  it('reads seed nodes and credentials from the URL, and never shows the password', () => {
    expect(clusterSeeds('redis+cluster://u:s3cret@10.0.0.1:7000,10.0.0.2:7001')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      username: 'u',
      password: 's3cret',
      tls: false,
    });
    expect(clusterSeeds('rediss+cluster://h').nodes).toEqual([{ host: 'h', port: 6379 }]);
    expect(clusterSeeds('rediss+cluster://h').tls).toBe(true);
    expect(() => clusterSeeds('redis+cluster://h:notaport')).toThrow(/bad cluster node/);
    expect(redactUrl('redis+cluster://u:s3cret@10.0.0.1:7000,10.0.0.2:7001')).toBe('redis+cluster://u:***@10.0.0.1:7000,10.0.0.2:7001');
  });
});
