// /readyz follows the shared state store it needs (a real redis-server killed and started again) and
// never calls an upstream. It needs no key, so on a shared store it says how many instances there are,
// never their hostnames or pids (review R11): those are in /status.json, for an admin key.
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { requireTools } from '../support/required-tools.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream/index.js';

requireTools('redis-server');

let upstream: ScriptedUpstream;
const running: GatewayProcess[] = [];
let redis: RedisServer | undefined;
const servers: RedisServer[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream();
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.stop()));
  await redis?.stop();
  await Promise.all(servers.map((r) => r.stop()));
  await upstream?.close();
}, 30_000);

const providers = () => ({ up: { protocol: 'messages', base_url: upstream.url, api_key: 'u' } });

async function readyz(g: GatewayProcess): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(g.url + '/readyz', { signal: AbortSignal.timeout(3000) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function until(cond: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('readiness and the state store', () => {
  it('Redis away: not ready (no address in the answer), stateless requests still served; Redis back: ready', async () => {
    redis = await startRedisServer();
    const g = await startGatewayProcess({ state: { backend: 'redis', url: redis.url, op_timeout_ms: 500 }, providers: providers(), models: { m: { provider: 'up', model: 'claude-up' } } });
    running.push(g);
    const before = upstream.received.length;
    expect(await readyz(g)).toEqual({ status: 200, body: { status: 'ready', state: { backend: 'redis', reachable: true }, instances: 1 } });
    await redis.kill();
    await until(async () => (await readyz(g)).status === 503, 5000);
    const down = await readyz(g);
    expect(down.body).toEqual({ status: 'state_unavailable', state: { backend: 'redis', reachable: false }, instances: 1 });
    expect(JSON.stringify(down.body)).not.toContain(String(redis.port));
    // Probing never reached the upstream.
    expect(upstream.received.length).toBe(before);
    const served = await fetch(g.url + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(served.status).toBe(200);
    await redis.start();
    await until(async () => (await readyz(g)).status === 200, 10_000);
  }, 60_000);

  it('two instances on one Redis: /readyz gives only their count; /status.json lists them for an admin key', async () => {
    const shared = await startRedisServer();
    servers.push(shared);
    const config = {
      auth: { keys: [{ name: 'caller', key: 'caller-key-r11-000000' }], admin_keys: [{ name: 'ops', key: 'admin-key-r11-000000' }] },
      status: { enabled: true },
      state: { backend: 'redis', url: shared.url, op_timeout_ms: 500 },
      providers: providers(),
      models: { m: { provider: 'up', model: 'claude-up' } },
    };
    const a = await startGatewayProcess(config);
    running.push(a);
    const b = await startGatewayProcess(config);
    running.push(b);
    await until(async () => (await readyz(a)).body.instances === 2 && (await readyz(b)).body.instances === 2, 15_000);
    for (const g of [a, b]) {
      const r = await fetch(g.url + '/readyz', { signal: AbortSignal.timeout(3000) });
      const text = await r.text();
      expect(JSON.parse(text)).toEqual({ status: 'ready', state: { backend: 'redis', reachable: true }, instances: 2 });
      expect(text).not.toContain(hostname());
      for (const pid of [a.pid, b.pid]) expect(text).not.toContain(String(pid));
    }
    // The detail is still there for the operator: /status.json with an admin key (a caller key is refused).
    const refused = await fetch(a.url + '/status.json', { headers: { 'x-api-key': 'caller-key-r11-000000' }, signal: AbortSignal.timeout(3000) });
    expect(refused.status).toBe(403);
    const status = (await (await fetch(a.url + '/status.json', { headers: { 'x-api-key': 'admin-key-r11-000000' }, signal: AbortSignal.timeout(3000) })).json()) as {
      instance: { instances: { host: string; pid: number }[] };
    };
    expect(status.instance.instances.map((i) => i.pid).sort()).toEqual([a.pid, b.pid].sort());
    expect(status.instance.instances.every((i) => i.host === hostname())).toBe(true);
  }, 60_000);
});
