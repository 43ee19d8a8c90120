// Shared state across real gateway processes (`node --import tsx src/main.ts`) in front of one scripted
// upstream, with a real redis-server where Redis is the backend:
//   - --workers 4 with no state backend configured (file by default): 200 previous_response_id chains of
//     3 turns, streamed and not, translation and pass-through, every request on a new connection;
//   - --workers 4 on file: a worker killed mid-traffic is replaced without taking the others down;
//   - two gateways on one Redis: chains alternating between them;
//   - the file backend: a chain continues after a restart;
//   - Redis killed mid-traffic: no crash, 503 `state store unavailable` only for requests that need the
//     store, 200 for the rest, recovery when Redis is back;
//   - circuits: a deployment tripped in one process is skipped by the others (Redis, and --workers 2 on file).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startGatewayProcess, waitForOutput, type GatewayProcess } from '../support/gateway-process.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { requireTools } from '../support/required-tools.js';
import { echoMarkers, marker, pool, responsesTurn } from '../support/responses-chain.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream/index.js';

requireTools('redis-server');

const TRANSLATED = 'via-messages';
const PASS_A = 'via-responses';
const PASS_B = 'via-responses-b';

let upstream: ScriptedUpstream;
const dirs: string[] = [];
const running: GatewayProcess[] = [];
const redises: RedisServer[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'switchyard-state-e2e-'));
  dirs.push(d);
  return d;
}

/** Providers and models on the scripted upstream; `extra` merged over the top level. */
function gatewayConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = upstream.url;
  const p = (protocol: string, key: string, more: Record<string, unknown> = {}) => ({
    protocol,
    base_url: protocol === 'messages' ? base : base + '/v1',
    api_key: key,
    retry: { attempts: 1 },
    ...more,
  });
  return {
    providers: {
      'up-messages': p('messages', 'k-m'),
      'up-responses': p('responses', 'k-r'),
      'up-responses-b': p('responses', 'k-rb'),
      flaky: p('messages', 'k-f', { cooldown: { failures: 1, window_ms: 60_000, cooldown_ms: 60_000, max_cooldown_ms: 60_000 } }),
    },
    models: {
      [TRANSLATED]: { provider: 'up-messages', model: 'claude-up' },
      [PASS_A]: { provider: 'up-responses', model: 'gpt-up-a' },
      [PASS_B]: { provider: 'up-responses-b', model: 'gpt-up-b' },
      'flaky-then-steady': {
        strategy: 'fallback',
        targets: [
          { provider: 'flaky', model: 'flaky-up' },
          { provider: 'up-messages', model: 'claude-up' },
        ],
      },
    },
    ...extra,
  };
}

async function start(config: Record<string, unknown>, options: Parameters<typeof startGatewayProcess>[1] = {}): Promise<GatewayProcess> {
  const g = await startGatewayProcess(config, options);
  running.push(g);
  return g;
}

async function redis(): Promise<RedisServer> {
  const r = await startRedisServer();
  redises.push(r);
  return r;
}

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  upstream.setDefault((req) => (JSON.stringify(req.body).includes('flaky-up') ? { kind: 'http-error', status: 500, message: 'flaky is down' } : echoMarkers(req)));
});

afterAll(async () => {
  await Promise.all(running.map((g) => g.stop()));
  await Promise.all(redises.map((r) => r.stop()));
  await upstream?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 30_000);

/** The upstream request of a turn: the first to carry its marker (later turns carry it as history). */
function upstreamOf(chain: string, turn: number) {
  const m = marker(chain, turn);
  return upstream.received.find((r) => r.method === 'POST' && JSON.stringify(r.body).includes(m));
}

/** Turn `t` of a chain on model `models[t-1]` and gateway `urls[t-1]`: every answer checked. */
async function runChain(name: string, urls: string[], models: string[], stream: boolean): Promise<string | undefined> {
  let prev: string | undefined;
  for (let t = 1; t <= models.length; t++) {
    const r = await responsesTurn(urls[t - 1]!, { model: models[t - 1], input: `${marker(name, t)} go`, ...(prev ? { previous_response_id: prev } : {}) }, { stream });
    if (r.status !== 200 || r.text !== `(ok ${marker(name, t)})`) return `${name} turn ${t}: ${r.status} ${r.text.slice(0, 300)}`;
    prev = r.id;
  }
  // The last turn's upstream request carried every earlier turn, question and answer.
  const last = JSON.stringify(upstreamOf(name, models.length)?.body ?? {});
  for (let t = 1; t < models.length; t++) {
    if (!last.includes(marker(name, t)) || !last.includes(`(ok ${marker(name, t)})`)) return `${name}: turn ${models.length} lacks turn ${t} (${last.slice(0, 300)})`;
  }
  return undefined;
}

describe('shared state across processes', () => {
  it('--workers 4 (file backend by default): 200 chains of 3 turns, streamed and not, translation and pass-through', async () => {
    // Only a path: valid for the file backend alone, which is what --workers picks when none is set.
    const g = await start(gatewayConfig({ state: { path: join(tempDir(), 'state') } }), { workers: 4 });
    const started = Date.now();
    const failures = await pool(200, 16, (i) => {
      const translated = i % 2 === 0;
      const stream = i % 4 >= 2;
      // Pass-through chains switch deployment every turn, so the history must be inlined each time.
      const models = translated ? [TRANSLATED, TRANSLATED, TRANSLATED] : [PASS_A, PASS_B, PASS_A];
      return runChain(`w${i}`, [g.url, g.url, g.url], models, stream);
    });
    const failed = failures.filter((f) => f !== undefined);
    expect(failed, g.output().slice(-2000)).toEqual([]);
    expect(g.output()).not.toMatch(/"level":(50|60)/);
    console.log(`--workers 4, file backend: 600 turns in ${Date.now() - started} ms`);
  }, 90_000);

  it('--workers 4 on the file backend: a worker killed mid-traffic is replaced, and its replacement opening the store takes no other worker down', async () => {
    const g = await start(gatewayConfig({ state: { path: join(tempDir(), 'state') } }), { workers: 4 });
    const chains = (from: number, n: number) =>
      pool(n, 8, (i) => {
        const k = from + i;
        const models = k % 2 === 0 ? [TRANSLATED, TRANSLATED, TRANSLATED] : [PASS_A, PASS_B, PASS_A];
        return runChain(`kill${k}`, [g.url, g.url, g.url], models, k % 4 >= 2);
      });
    // Grow the store well past LMDB's first map (128 KB) in every worker.
    expect((await chains(0, 60)).filter((f) => f !== undefined)).toEqual([]);
    const before = workerPids(g.pid);
    expect(before).toHaveLength(4);
    process.kill(before[0]!, 'SIGKILL');
    await until(async () => {
      const now = workerPids(g.pid);
      return now.length === 4 && !now.includes(before[0]!);
    }, 20_000);
    // The replacement opens the store before it listens: wait for it to take connections too.
    await sleep(1500);
    expect((await chains(100, 60)).filter((f) => f !== undefined)).toEqual([]);
    // Exactly one worker died, the one killed here; the other three are the ones from the start.
    const exits = g.output().match(/^.*"msg":"worker exited.*$/gm) ?? [];
    expect(exits, g.output().slice(-3000)).toHaveLength(1);
    expect(exits[0]).toContain(`"pid":${before[0]}`);
    expect(exits[0]).toContain('"signal":"SIGKILL"');
    expect(workerPids(g.pid).filter((p) => before.includes(p)).sort()).toEqual(before.slice(1).sort());
  }, 90_000);

  it('two gateways on one Redis: chains alternating between them, and retrieve from the other one', async () => {
    const r = await redis();
    const state = { backend: 'redis', url: r.url, key_prefix: 'e2e-two:' };
    const [a, b] = await Promise.all([start(gatewayConfig({ state })), start(gatewayConfig({ state }))]);
    const failures = await pool(24, 8, (i) => {
      const models = i % 2 === 0 ? [TRANSLATED, TRANSLATED, TRANSLATED] : [PASS_A, PASS_B, PASS_A];
      return runChain(`two${i}`, [a!.url, b!.url, a!.url], models, i % 4 >= 2);
    });
    expect(failures.filter((f) => f !== undefined)).toEqual([]);
    const made = await responsesTurn(a!.url, { model: TRANSLATED, input: marker('two-get', 1) });
    // The save follows A's last byte: B sees it as soon as it has landed.
    let got: { id?: string } = {};
    await until(async () => {
      const res = await fetch(`${b!.url}/v1/responses/${made.id}`);
      got = (await res.json()) as { id?: string };
      return res.status === 200;
    }, 5000);
    expect(got.id).toBe(made.id);
  }, 60_000);

  it('file backend: a conversation continues after a restart of the gateway', async () => {
    const config = gatewayConfig({ state: { backend: 'file', path: join(tempDir(), 'state') } });
    const first = await start(config);
    const t1 = await responsesTurn(first.url, { model: TRANSLATED, input: marker('restart', 1) });
    expect(t1.status).toBe(200);
    // The save follows the last byte: wait until it can be read back before stopping.
    await until(async () => (await fetch(`${first.url}/v1/responses/${t1.id}`)).status === 200, 5000);
    expect(await first.stop()).toBe(0);
    const second = await start(config, { port: first.port });
    const t2 = await responsesTurn(second.url, { model: TRANSLATED, input: marker('restart', 2), previous_response_id: t1.id });
    expect(t2.status, t2.text).toBe(200);
    expect(JSON.stringify(upstreamOf('restart', 2)!.body)).toContain(`(ok ${marker('restart', 1)})`);
  }, 60_000);

  it('Redis killed mid-traffic: no crash, 503 only for requests that need the store, recovery when it is back', async () => {
    const r = await redis();
    const g = await start(gatewayConfig({ state: { backend: 'redis', url: r.url, key_prefix: 'e2e-outage:', op_timeout_ms: 500 } }));
    const seed = await responsesTurn(g.url, { model: TRANSLATED, input: marker('outage', 1) });
    expect(seed.status).toBe(200);
    await until(async () => (await fetch(`${g.url}/v1/responses/${seed.id}`)).status === 200, 5000);

    const statuses = { stateless: new Map<number, number>(), stateful: new Map<number, number>(), messages: new Map<number, number>() };
    const bump = (m: Map<number, number>, s: number) => m.set(s, (m.get(s) ?? 0) + 1);
    const outageBodies: string[] = [];
    let stop = false;
    const traffic = (async () => {
      let i = 0;
      while (!stop) {
        i++;
        const [plain, cont, msg] = await Promise.all([
          responsesTurn(g.url, { model: i % 2 ? TRANSLATED : PASS_A, input: marker(`o-plain${i}`, 1) }, { stream: i % 3 === 0 }),
          responsesTurn(g.url, { model: TRANSLATED, input: marker(`o-cont${i}`, 2), previous_response_id: seed.id }),
          fetch(`${g.url}/v1/messages`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': 'x', 'anthropic-version': '2023-06-01' },
            body: JSON.stringify({ model: TRANSLATED, max_tokens: 16, messages: [{ role: 'user', content: marker(`o-msg${i}`, 1) }] }),
            signal: AbortSignal.timeout(10_000),
          }).then(async (res) => ({ status: res.status, text: await res.text() })),
        ]);
        bump(statuses.stateless, plain.status);
        bump(statuses.stateful, cont.status);
        bump(statuses.messages, msg.status);
        if (cont.status === 503) outageBodies.push(cont.text);
      }
    })();
    await sleep(300);
    await r.kill();
    await until(async () => statuses.stateful.has(503), 10_000);
    await sleep(1200);
    stop = true;
    await traffic;
    // Everything that did not need the store was answered; only the continuations got 503s.
    expect([...statuses.stateless.keys()], JSON.stringify([...statuses.stateless])).toEqual([200]);
    expect([...statuses.messages.keys()]).toEqual([200]);
    expect([...statuses.stateful.keys()].sort()).toEqual([200, 503]);
    const body = JSON.parse(outageBodies[0]!) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'server_error', code: 'service_unavailable' });
    expect(body.error.message).toMatch(/^state store unavailable/);
    expect(body.error.message).not.toContain(String(r.port));

    // Back: Redis restarts empty (no persistence in tests), so a new conversation proves recovery.
    await r.start();
    let recovered: string | undefined = 'not tried';
    const deadline = Date.now() + 15_000;
    let n = 0;
    while (recovered !== undefined && Date.now() < deadline) {
      recovered = await runChain(`back${n++}`, [g.url, g.url], [TRANSLATED, TRANSLATED], false);
      if (recovered !== undefined) await sleep(200);
    }
    expect(recovered).toBeUndefined();
    const metrics = await (await fetch(`${g.url}/metrics`)).text();
    const errors = metrics
      .split('\n')
      .filter((l) => l.startsWith('switchyard_state_errors_total{'))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    expect(errors).toBeGreaterThan(0);
    expect(g.output()).not.toMatch(/uncaught|unhandled/i);
  }, 60_000);

  it('start-up with an unreachable Redis: exits with a message naming the store (one process and --workers 2); state.required: false starts and serves', async () => {
    const nowhere = { backend: 'redis', url: `redis://127.0.0.1:${await freePort()}`, op_timeout_ms: 300 };
    for (const workers of [undefined, 2]) {
      const g = await start(gatewayConfig({ state: nowhere }), { wait: false, ...(workers ? { workers } : {}) });
      const code = await Promise.race([g.exited, sleep(20_000).then(() => 'still running' as const)]);
      expect(code, g.output()).toBe(3);
      expect(g.output()).toMatch(/state store unavailable \(redis at redis:\/\/127\.0\.0\.1:\d+.*set state\.required: false to start anyway/);
    }
    const g = await start(gatewayConfig({ state: { ...nowhere, required: false } }));
    expect((await responsesTurn(g.url, { model: TRANSLATED, input: marker('optional', 1) })).status).toBe(200);
    const cont = await responsesTurn(g.url, { model: TRANSLATED, input: marker('optional', 2), previous_response_id: 'resp_anything' });
    expect(cont.status).toBe(503);
    await waitForOutput(g, /starting anyway/);
  }, 60_000);

  it('a circuit tripped in one gateway is skipped by another on the same Redis', async () => {
    const r = await redis();
    const state = { backend: 'redis', url: r.url, key_prefix: 'e2e-circuit:' };
    const [a, b] = await Promise.all([start(gatewayConfig({ state })), start(gatewayConfig({ state }))]);
    await expectSharedCircuit([a!.url], [b!.url]);
  }, 60_000);

  it('--workers 2 on the file backend: a circuit tripped in one worker is skipped by the other', async () => {
    const g = await start(gatewayConfig({ state: { backend: 'file', path: join(tempDir(), 'state') } }), { workers: 2 });
    // Every request on a new connection: node:cluster hands them to the workers in turn.
    await expectSharedCircuit([g.url], [g.url, g.url, g.url, g.url, g.url, g.url]);
  }, 60_000);
});

/** One failing request through `first` trips `flaky` (failures: 1); the later requests never reach it. */
async function expectSharedCircuit(first: string[], later: string[]): Promise<void> {
  const flakyCalls = () => upstream.received.filter((x) => JSON.stringify(x.body).includes('flaky-up')).length;
  const before = flakyCalls();
  const send = async (url: string, i: number) => {
    const res = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'x', 'anthropic-version': '2023-06-01', connection: 'close' },
      body: JSON.stringify({ model: 'flaky-then-steady', max_tokens: 16, messages: [{ role: 'user', content: `circuit ${i}` }] }),
      signal: AbortSignal.timeout(10_000),
    });
    await res.text();
    return res.status;
  };
  for (const url of first) expect(await send(url, 0)).toBe(200);
  expect(flakyCalls() - before).toBe(1);
  // The broadcast: Redis pub/sub at once, the file channel within its 25 ms poll.
  await sleep(150);
  for (let i = 0; i < later.length; i++) expect(await send(later[i]!, i + 1)).toBe(200);
  expect(flakyCalls() - before).toBe(1);
}

/** The pids of a process's children (the cluster's workers), from /proc. */
function workerPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(25);
  }
  throw new Error(`condition not met within ${ms} ms`);
}
