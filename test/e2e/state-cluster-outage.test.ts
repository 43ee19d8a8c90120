// A Redis Cluster that goes away (issue 32, R2), with a real three-node cluster killed node by node, and
// all three at once while four callers keep sending: a limited key's requests fail within
// state.op_timeout_ms (plus slack) with the door's 503, nothing stays in flight, /readyz turns 503 within its documented bound (1 s + op_timeout_ms), and
// both come back when the nodes do. Before, the cluster client's offline queue held every call for the
// whole outage and /readyz kept answering from a ping that never settled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { requireTools } from '../support/required-tools.js';

requireTools('redis-server', 'redis-cli');

const OP_TIMEOUT_MS = 800;
/** /readyz's documented bound: one probe interval (1 s) plus op_timeout_ms. */
const READY_BOUND_MS = 1000 + OP_TIMEOUT_MS;
/** A loaded two-core machine. */
const SLACK_MS = 1200;
const KEY = 'sk-sy-cluster-outage-limited-01';

let cluster: RedisCluster;
let h: Harness;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  h = await startHarness({
    apiKey: KEY,
    config: (base) => ({
      auth: { keys: [{ name: 'limited', key: KEY, limits: { rpm: 10_000, concurrency: 4 } }] },
      state: { backend: 'redis', url: cluster.url, op_timeout_ms: OP_TIMEOUT_MS, key_prefix: 'outage:' },
      providers: { up: { protocol: 'messages', base_url: base, api_key: 'upstream-key', retry: { attempts: 1 } } },
      models: { m: { provider: 'up', model: 'claude-up' } },
    }),
  });
  h.upstream.setDefault(() => ({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] }));
}, 90_000);
afterAll(async () => {
  await h?.close();
  await cluster?.stop();
}, 30_000);

async function ask(): Promise<{ status: number; ms: number; body: string }> {
  const t0 = Date.now();
  const res = await fetch(h.url + '/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, ms: Date.now() - t0, body: await res.text() };
}

async function readyz(): Promise<number> {
  return (await fetch(h.url + '/readyz', { signal: AbortSignal.timeout(5000) })).status;
}

/** Polls /readyz until it answers `status`; the time it took. */
async function readyzBecomes(status: number, ms: number): Promise<number> {
  const t0 = Date.now();
  while ((await readyz()) !== status) {
    if (Date.now() - t0 > ms) throw new Error(`/readyz not ${status} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - t0;
}

/** The index of the node that serves `key`'s slot. */
async function ownerOf(key: string): Promise<number> {
  const slot = Number((await cluster.cli(cluster.ports[0]!, 'cluster', 'keyslot', key)).trim());
  // `cluster slots`, one value a line: start end host port id …
  const table = (await cluster.cli(cluster.ports[0]!, 'cluster', 'slots')).split('\n').map((l) => l.trim());
  for (let i = 0; i < table.length; i++) {
    const start = Number(table[i]);
    const end = Number(table[i + 1]);
    if (Number.isInteger(start) && Number.isInteger(end) && table[i + 2] === '127.0.0.1' && slot >= start && slot <= end) {
      return cluster.ports.indexOf(Number(table[i + 3]));
    }
  }
  throw new Error(`no owner for slot ${slot}`);
}

function expectFastUnavailable(r: { status: number; ms: number; body: string }): void {
  expect(r.status).toBe(503);
  expect(JSON.parse(r.body)).toMatchObject({ type: 'error', error: { message: expect.stringMatching(/state store unavailable/) } });
  expect(r.ms).toBeLessThan(OP_TIMEOUT_MS + SLACK_MS);
}

describe('a Redis Cluster going away', () => {
  it('node by node, then all at once: fast 503s, /readyz 503 within its bound, recovery when the nodes return', async () => {
    expect((await ask()).status).toBe(200);
    expect(await readyz()).toBe(200);

    // The node that holds the limits' slot ({l}): limited requests fail fast, and /readyz sees it (it
    // probes the slots the requests use, not any node).
    const limits = await ownerOf('outage:{l}:x');
    await cluster.kill(limits);
    for (const r of await Promise.all([ask(), ask()])) expectFastUnavailable(r);
    expect(await readyzBecomes(503, READY_BOUND_MS + SLACK_MS)).toBeLessThan(READY_BOUND_MS + SLACK_MS);

    // Every node.
    for (let i = 0; i < cluster.ports.length; i++) if (i !== limits) await cluster.kill(i);
    const t0 = Date.now();
    for (const r of await Promise.all([ask(), ask(), ask()])) expectFastUnavailable(r);
    expect(await readyz()).toBe(503);
    // Still fast several seconds into the outage (the client reconnecting the whole time).
    await new Promise((r) => setTimeout(r, 3000));
    for (const r of await Promise.all([ask(), ask()])) expectFastUnavailable(r);
    expect(Date.now() - t0).toBeLessThan(3000 + 2 * (OP_TIMEOUT_MS + SLACK_MS));
    expect(h.gateway.ctx.inFlight.size).toBe(0);

    // Back: requests and readiness recover by themselves, and the key's concurrency slots were all
    // given back (four at once are admitted).
    for (let i = 0; i < cluster.ports.length; i++) await cluster.restart(i);
    await cluster.ready();
    await readyzBecomes(200, 20_000);
    const end = Date.now() + 20_000;
    let ok = await ask();
    while (ok.status !== 200 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 200));
      ok = await ask();
    }
    expect(ok.status).toBe(200);
    const four = await Promise.all([ask(), ask(), ask(), ask()]);
    expect(four.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  }, 120_000);

  it('every node killed at once mid-traffic: no request hangs, /readyz 503 within its bound, both recover', async () => {
    await readyzBecomes(200, 20_000);
    // Four callers in a loop, each request timed; the nodes die together while they run.
    let stop = false;
    const seen: { at: number; status: number; ms: number; body: string }[] = [];
    const caller = async () => {
      while (!stop) {
        const at = Date.now();
        const r = await ask().catch((e: Error) => ({ status: 0, ms: Date.now() - at, body: e.message }));
        seen.push({ at, ...r });
      }
    };
    const callers = Promise.all([caller(), caller(), caller(), caller()]);
    await new Promise((r) => setTimeout(r, 1000));
    const killedAt = Date.now();
    await Promise.all(cluster.ports.map((_, i) => cluster.kill(i)));
    const readyMs = await readyzBecomes(503, READY_BOUND_MS + SLACK_MS);
    await new Promise((r) => setTimeout(r, 3000));
    stop = true;
    await callers;

    expect(seen.filter((r) => r.at < killedAt && r.status === 200).length).toBeGreaterThan(0);
    const during = seen.filter((r) => r.at >= killedAt + OP_TIMEOUT_MS);
    expect(during.length).toBeGreaterThan(4);
    for (const r of during) expectFastUnavailable(r);
    // Those in flight at the kill: an answer or the same fast 503, none held by the outage.
    for (const r of seen.filter((x) => x.at < killedAt + OP_TIMEOUT_MS)) {
      expect([200, 503], r.body).toContain(r.status);
      expect(r.ms).toBeLessThan(OP_TIMEOUT_MS + SLACK_MS);
    }
    expect(readyMs).toBeLessThan(READY_BOUND_MS + SLACK_MS);
    expect(h.gateway.ctx.inFlight.size).toBe(0);

    for (let i = 0; i < cluster.ports.length; i++) await cluster.restart(i);
    await cluster.ready();
    await readyzBecomes(200, 20_000);
    const end = Date.now() + 20_000;
    let ok = await ask();
    while (ok.status !== 200 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 200));
      ok = await ask();
    }
    expect(ok.status).toBe(200);
    expect((await Promise.all([ask(), ask(), ask(), ask()])).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  }, 120_000);
});
