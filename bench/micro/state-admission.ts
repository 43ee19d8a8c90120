// CPU per admitted + settled request on the shared-state backends, in-process, with a fixed number
// in flight: the state work bench/access-overhead.ts measures end to end, without the HTTP noise of
// a shared machine. A micro-benchmark, not a test: it prints µs per request and asserts nothing.
// Redis: the client's CPU and the server's (INFO cpu), on a redis-server started on loopback.
//
//   node --import tsx bench/micro/state-admission.ts [--requests N] [--inflight N] [--backends file,redis]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { admissionPlan, settlementCharges } from '../../src/access/admission-plan.js';
import type { Caller } from '../../src/access/caller.js';
import { FileStateStore } from '../../src/state/file-store.js';
import { RedisStateStore } from '../../src/state/redis-store.js';
import type { StateStore } from '../../src/state/types.js';
import { startRedisServer } from '../../test/support/redis-server.js';
import { parseFlags } from '../cli-flags.js';

const f = parseFlags(process.argv.slice(2));
const REQUESTS = Number(f.get('requests') ?? 20_000);
const INFLIGHT = Number(f.get('inflight') ?? 32);
const BACKENDS = (f.get('backends') ?? 'file,redis').split(',');

// The caller of bench/access-overhead.ts: rpm, tpm, concurrency and a monthly budget.
const caller = {
  name: 'bench',
  anonymous: false,
  key: { limits: { rpm: 100_000_000, tpm: 1_000_000_000_000, concurrency: 1_000_000 }, budget: { usd: 1_000_000_000, period: 'month' } },
} as unknown as Caller;

async function oneRequest(store: StateStore): Promise<void> {
  const now = Date.now();
  const plan = admissionPlan(caller, now, 30 * 60_000);
  const r = await store.admit(plan.checks);
  if (!r.ok) throw new Error('refused');
  // The answer comes back in a later event-loop turn, as from a real upstream (lmdb-js, for one, does
  // per-turn work that a loop of bare promises would never trigger).
  await new Promise(setImmediate);
  await store.settle(settlementCharges(caller, { tokens: 120, costMicros: 1234, modelAlias: 'm' }, now), r.leases);
}

async function drive(store: StateStore, n: number): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started < n) {
      started++;
      await oneRequest(store);
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, lane));
}

async function redisCpuUs(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const num = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (num('used_cpu_sys') + num('used_cpu_user')) * 1e6;
}

async function scriptCalls(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

async function measure(name: string, store: StateStore, serverCpu?: () => Promise<number>, calls?: () => Promise<number>): Promise<void> {
  await drive(store, 2_000); // warm-up: JIT, first records
  for (let round = 1; round <= 3; round++) {
    const s0 = serverCpu ? await serverCpu() : 0;
    const k0 = calls ? await calls() : 0;
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await drive(store, REQUESTS);
    const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
    const c = process.cpuUsage(c0);
    const s1 = serverCpu ? await serverCpu() : 0;
    const client = (c.user + c.system) / REQUESTS;
    const server = serverCpu ? ` + server ${((s1 - s0) / REQUESTS).toFixed(1)} µs` : '';
    const perCall = calls ? `; ${(((await calls()) - k0) / REQUESTS).toFixed(2)} script calls per request` : '';
    process.stdout.write(
      `${name.padEnd(6)} round ${round}: client ${client.toFixed(1)} µs${server} CPU per admit+settle; ${(REQUESTS / (wallUs / 1e6)).toFixed(0)}/s at ${INFLIGHT} in flight${perCall}\n`,
    );
  }
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-state-micro-'));
try {
  process.stdout.write(`load ${os.loadavg()[0]!.toFixed(2)}, ${REQUESTS} requests per round\n`);
  if (BACKENDS.includes('file')) {
    const store = new FileStateStore({ path: path.join(tmp, 'state') });
    await measure('file', store);
    await store.close();
  }
  if (BACKENDS.includes('redis')) {
    const server = await startRedisServer();
    const store = new RedisStateStore({ url: server.url, keyPrefix: 'micro:' });
    const probe = new Redis(server.url);
    try {
      await measure('redis', store, () => redisCpuUs(probe), () => scriptCalls(probe));
    } finally {
      probe.disconnect();
      await store.close();
      await server.stop();
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
