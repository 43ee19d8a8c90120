// /readyz follows the shared state store it needs (a real redis-server killed and started again) and
// never calls an upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { requireTools } from '../support/required-tools.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream/index.js';

requireTools('redis-server');

let upstream: ScriptedUpstream;
const running: GatewayProcess[] = [];
let redis: RedisServer | undefined;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.stop()));
  await redis?.stop();
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
    expect(await readyz(g)).toEqual({ status: 200, body: { status: 'ready', state: { backend: 'redis', reachable: true }, instances: 1, others: [] } });
    await redis.kill();
    await until(async () => (await readyz(g)).status === 503, 5000);
    const down = await readyz(g);
    expect(down.body).toEqual({ status: 'state_unavailable', state: { backend: 'redis', reachable: false }, instances: 1, others: [] });
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
});
