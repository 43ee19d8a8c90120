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
import { FileStateStore } from '../../src/state/file-store.js';
import { RedisStateStore } from '../../src/state/redis-store.js';
import type { StateStore } from '../../src/state/types.js';
import { startRedisServer } from '../../test/support/redis-server.js';
import { parseFlags } from '../cli-flags.js';
import { driveAdmissions } from './admission-load.js';

const f = parseFlags(process.argv.slice(2));
const REQUESTS = Number(f.get('requests') ?? 20_000);
const INFLIGHT = Number(f.get('inflight') ?? 32);
const BACKENDS = (f.get('backends') ?? 'file,redis').split(',');

const drive = (store: StateStore, n: number) => driveAdmissions(store, n, INFLIGHT);

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
