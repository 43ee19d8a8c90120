// On Redis (a real redis-server): the instances that share it are listed (a second instance announcing
// on the same store appears; one that stops drops off after its TTL), usage is marked cluster-wide,
// and the state store's reachability follows the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';
import { createStateStore } from '../../../src/state/create-state-store.js';
import { InstanceRegistry } from '../../../src/state/instance-registry.js';
import { startHarness, type Harness } from '../../support/gateway-harness.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { requireTools } from '../../support/required-tools.js';

requireTools('redis-server');
let redis: RedisServer;
let harness: Harness;

beforeAll(async () => {
  redis = await startRedisServer();
  harness = await startHarness({
    config: () => ({
      status: { enabled: true },
      state: { backend: 'redis', url: redis.url, key_prefix: 'status-test:' },
      // With keys, the status data needs an admin key (docs/security.md).
      auth: { keys: [{ name: 'capped', key: 'k-capped-1', limits: { rpm: 5 } }], admin_keys: [{ name: 'ops', key: 'k-ops-status-1' }] },
    }),
    apiKey: 'k-capped-1',
  });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await redis?.stop();
});

const status = async () => (await (await fetch(harness.url + '/status.json', { headers: { 'x-api-key': 'k-ops-status-1' } })).json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('status on redis', () => {
  it('lists the instances sharing the store, marks usage cluster-wide, and shows the store going away', async () => {
    const config = resolveConfig({ auth: { open: true }, providers: {}, models: {}, state: { backend: 'redis', url: redis.url, key_prefix: 'status-test:' } }, 'other');
    const otherStore = createStateStore(config);
    // The gateway's registry is started by main.ts once the store is connected; the harness builds the app only.
    harness.gateway.ctx.instances!.start();
    const other = new InstanceRegistry(otherStore, { version: '9.9.9', heartbeatMs: 500 });
    other.start();
    try {
      await expect.poll(async () => (await status()).instance.instances.length, { timeout: 10_000 }).toBe(2);
      const body = await status();
      expect(body.instance.instances.find((i: { id: string }) => i.id === other.self.id)).toMatchObject({ version: '9.9.9', pid: process.pid });
      expect(body.instance.instances[0].id).toBe(harness.gateway.ctx.instances!.self.id);
      expect(body.instance.state).toEqual({ backend: 'redis', reachable: true, error: null });

      await harness.anthropic.messages.create({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
      await new Promise((r) => setTimeout(r, 1100)); // the usage read is cached for a second
      const access = (await status()).access;
      expect(access).toMatchObject({ scope: 'cluster', backend: 'redis', error: null });
      expect(access.keys[0].key).toBe('capped');
      expect(access.keys[0].limits.find((l: { limit: string }) => l.limit === 'rpm')).toMatchObject({ used: 1, max: 5 });
      // An instance that says goodbye leaves the list.
      await other.stop();
      await expect.poll(async () => (await status()).instance.instances.length, { timeout: 5_000 }).toBe(1);
    } finally {
      await other.stop();
      await otherStore.close();
    }

    await redis.kill();
    await new Promise((r) => setTimeout(r, 1100));
    const down = await status();
    expect(down.instance.state.reachable).toBe(false);
    expect(down.instance.state.error).toBeTruthy();
    expect(down.access.error).toBeTruthy();
  }, 60_000);
});
