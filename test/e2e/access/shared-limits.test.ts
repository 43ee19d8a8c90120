// Limits that hold across processes and instances: a real redis-server, two gateway processes and a
// third with --workers 2, all on one Redis and one scripted upstream (in this process). Requests are
// spread over the three instances; the limits are the keys', not any one process's:
//   - rpm 100 under 300 concurrent requests: exactly 100 answered, 200 refused with retry-after and
//     the reset headers (the window is a minute: the test reads when it resets instead of waiting);
//   - concurrency 4: the upstream never has a fifth request of the key in flight, and the slots come back;
//   - tpm and a budget stop the key within one answer of the configured amount.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { requireTools } from '../../support/required-tools.js';
import { startScriptedUpstream, type Reply, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';

requireTools('redis-server');

const KEYS = { rpm: 'sk-sy-rpm-1111', conc: 'sk-sy-conc-2222', tpm: 'sk-sy-tpm-3333', budget: 'sk-sy-budget-4444' } as const;
/** 12 + 9 = 21 tokens; at $3/$15 per million, 171 µUSD. */
const OK: Reply = { kind: 'reply', blocks: [{ type: 'text', text: 'Hello.' }], usage: { input: 12, output: 9 } };

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function configYaml(port: number, redisUrl: string, upstreamUrl: string, prefix: string): string {
  return `
server: { host: 127.0.0.1, port: ${port} }
log: { level: warn }
state: { backend: redis, url: "${redisUrl}", key_prefix: "${prefix}" }
auth:
  keys:
    - { name: rpm, key: "${KEYS.rpm}", limits: { rpm: 100 } }
    - { name: conc, key: "${KEYS.conc}", limits: { concurrency: 4 } }
    - { name: tpm, key: "${KEYS.tpm}", limits: { tpm: 100 } }
    - { name: budget, key: "${KEYS.budget}", budget: { usd: 0.0005, period: day } }
providers:
  up: { protocol: messages, base_url: "${upstreamUrl}", api_key: upstream-key, retry: { attempts: 1 } }
models:
  m: { provider: up, model: claude-upstream-1, price: { input: 3, output: 15 } }
`;
}

interface Instance {
  url: string;
  child: ChildProcess;
  output: () => string;
}

async function waitReady(url: string, child: ChildProcess, output: () => string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`gateway exited (${child.exitCode}): ${output().slice(-2000)}`);
    try {
      if ((await fetch(url + '/readyz', { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready: ${url}: ${output().slice(-2000)}`);
}

async function startInstance(dir: string, name: string, yaml: (port: number) => string, workers: number): Promise<Instance> {
  const port = await freePort();
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml(port));
  const args = ['--import', 'tsx', 'src/main.ts', '--config', file, ...(workers > 1 ? ['--workers', String(workers)] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  return { url, child, output: () => out };
}

async function stopInstance(i: Instance): Promise<void> {
  if (i.child.exitCode !== null || i.child.signalCode !== null) return;
  const exited = new Promise((r) => i.child.once('exit', r));
  i.child.kill('SIGTERM');
  const timer = setTimeout(() => i.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

let redis: RedisServer | undefined;
let upstream: ScriptedUpstream | undefined;
let instances: Instance[] = [];
let dir = '';

beforeAll(async () => {
  redis = await startRedisServer();
  upstream = await startScriptedUpstream({ defaultReply: () => OK });
  dir = mkdtempSync(join(tmpdir(), 'switchyard-shared-limits-'));
  const prefix = `sy-limits-${process.pid}:`;
  const yaml = (port: number) => configYaml(port, redis!.url, upstream!.url, prefix);
  instances = await Promise.all([startInstance(dir, 'a', yaml, 1), startInstance(dir, 'b', yaml, 1), startInstance(dir, 'c', yaml, 2)]);
  await Promise.all(instances.map((i) => waitReady(i.url, i.child, i.output, 60_000)));
}, 90_000);

afterAll(async () => {
  await Promise.all(instances.map(stopInstance));
  await upstream?.close();
  await redis?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

async function call(n: number, key: string): Promise<Answer> {
  const target = instances[n % instances.length]!;
  const res = await fetch(target.url + '/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'm', max_tokens: 32, messages: [{ role: 'user', content: `hello ${n}` }] }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

describe('limits shared over Redis by two instances and a --workers 2 instance', () => {
  it('rpm 100 under 300 concurrent requests: exactly 100 answered, 200 refused with retry-after', async () => {
    const before = upstream!.received.length;
    const t0 = Date.now();
    const answers = await Promise.all(Array.from({ length: 300 }, (_, n) => call(n, KEYS.rpm)));
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect({ ok: ok.length, refused: refused.length }).toEqual({ ok: 100, refused: 200 });
    // Nothing refused reached the upstream.
    expect(upstream!.received.length - before).toBe(100);
    // Every instance took part.
    for (let i = 0; i < 3; i++) expect(answers.filter((_, n) => n % 3 === i && _.status === 200).length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(JSON.parse(r.body).error.type).toBe('rate_limit_error');
      // The first admissions are at most a few seconds old: the window frees its first slots a
      // minute after them (and at most one 1-second bucket later).
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(60 - Math.ceil((Date.now() - t0) / 1000) - 1);
      expect(retryAfter).toBeLessThanOrEqual(61);
      expect(r.headers.get('anthropic-ratelimit-requests-limit')).toBe('100');
      expect(r.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
      const reset = Date.parse(r.headers.get('anthropic-ratelimit-requests-reset')!);
      // A minute after the first admission (which came after t0), less one 1-second bucket and the
      // header's whole-second rounding; measured from t0, not from now, so a slow run cannot fail it.
      expect(reset).toBeGreaterThanOrEqual(t0 + 58_000);
      expect(reset).toBeLessThanOrEqual(Date.now() + 62_000);
    }
    // The remaining counts handed out to the admitted requests are each distinct: 99 … 0.
    const remaining = ok.map((a) => Number(a.headers.get('anthropic-ratelimit-requests-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));
  }, 60_000);

  it('concurrency 4: never a fifth request in flight upstream, and the slots come back', async () => {
    // Slow answers, so requests overlap for real.
    upstream!.setDefault(() => ({ kind: 'delay-headers', ms: 400, then: OK }));
    try {
      upstream!.resetMaxInFlight();
      const answers = await Promise.all(Array.from({ length: 24 }, (_, n) => call(n, KEYS.conc)));
      const ok = answers.filter((a) => a.status === 200).length;
      expect(upstream!.maxInFlight).toBeLessThanOrEqual(4);
      expect(ok).toBeGreaterThanOrEqual(4);
      expect(ok + answers.filter((a) => a.status === 429).length).toBe(24);
      for (const a of answers.filter((x) => x.status === 429)) {
        expect(JSON.parse(a.body).error.message).toContain('4 concurrent requests');
        expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      // All leases were given back: four at once are admitted again, on any instance.
      upstream!.resetMaxInFlight();
      const again = await Promise.all([0, 1, 2, 3].map((n) => call(n, KEYS.conc)));
      expect(again.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect(upstream!.maxInFlight).toBe(4);
    } finally {
      upstream!.setDefault(() => OK);
    }
  }, 60_000);

  it('tpm 100: stops within one answer (21 tokens) of the limit, whichever instance answered', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 8; n++) statuses.push((await call(n, KEYS.tpm)).status);
    // 0, 21, 42, 63, 84 tokens used before each: admitted; 105 ≥ 100: refused, and stays refused. Tokens are
    // debited after the caller's last byte, so a next request that overtakes the debit may pass: one answer's worth.
    const firstRefused = statuses.indexOf(429);
    expect([5, 6]).toContain(firstRefused);
    expect(statuses).toEqual([...Array(firstRefused).fill(200), ...Array(8 - firstRefused).fill(429)]);
  }, 60_000);

  it('a budget stops the key within one answer of its amount, across instances', async () => {
    const answers: Answer[] = [];
    for (let n = 0; n < 6; n++) answers.push(await call(n, KEYS.budget));
    // $0.0005 at $0.000171 an answer: spent 0, 171, 342 µUSD are under; 513 is not. Spend is charged after the
    // caller's last byte, so a next request that overtakes the charge may pass: one answer's worth.
    const statuses = answers.map((a) => a.status);
    const firstRefused = statuses.indexOf(402);
    expect([3, 4]).toContain(firstRefused);
    expect(statuses).toEqual([...Array(firstRefused).fill(200), ...Array(6 - firstRefused).fill(402)]);
    const refusal = JSON.parse(answers[firstRefused]!.body);
    expect(refusal.error.type).toBe('billing_error');
    expect(refusal.error.message).toMatch(/^the daily budget of key "budget" \(\$0\.0005\) is used up \(spent \$0\.000(513|684)\); it resets at /);
    // Every instance reports the same shared spend.
    for (const i of instances) {
      const usage = await fetch(i.url + '/v1/usage', { headers: { 'x-api-key': KEYS.budget }, signal: AbortSignal.timeout(10_000) });
      const body = (await usage.json()) as { spend: { scope: string; usd: number }[] };
      expect(body.spend.find((s) => s.scope === 'key')!.usd).toBeCloseTo(0.000171 * firstRefused, 9);
    }
  }, 60_000);
});
