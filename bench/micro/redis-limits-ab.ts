// redis-server CPU per limited request, two trees' Redis stores interleaved on one redis-server (issue
// 25): each round drives admit + settle of the bench caller (rpm, tpm, concurrency, monthly budget,
// as bench/access-overhead.ts) through tree A's store, then tree B's (then B, A: the order alternates),
// each on its own key prefix. Reports per request: the server's CPU (INFO cpu: the script, its socket
// and the server's own ticks), the script's execution alone (INFO commandstats' usec) and script calls;
// and the client's CPU. A micro-benchmark: it asserts nothing.
//
//   node --import tsx bench/micro/redis-limits-ab.ts --a <tree A> [--b <tree B, default this one>]
//     [--inflight 12] [--requests 6000] [--rounds 6] [--pin]
// A tree is a directory holding src/state/redis-store.ts (or .js) with node_modules reachable from it.
// 12 in flight make script calls of about the size HTTP makes at 32 connections (≈ 6 requests each).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { StateStore } from '../../src/state/types.js';
import { startRedisServer } from '../../test/support/redis-server.js';
import { parseFlags } from '../cli-flags.js';
import { driveAdmissions } from './admission-load.js';

const REPO = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const f = parseFlags(process.argv.slice(2));
const REQUESTS = Number(f.get('requests') ?? 6_000);
const INFLIGHT = Number(f.get('inflight') ?? 12);
const ROUNDS = Number(f.get('rounds') ?? 6);
const trees = { A: path.resolve(f.get('a') ?? REPO), B: path.resolve(f.get('b') ?? REPO) };

async function loadStore(tree: string, prefix: string, url: string): Promise<StateStore> {
  let mod: { RedisStateStore: new (o: { url: string; keyPrefix: string }) => StateStore };
  try {
    mod = await import(path.join(tree, 'src/state/redis-store.ts'));
  } catch {
    mod = await import(path.join(tree, 'src/state/redis-store.js'));
  }
  return new mod.RedisStateStore({ url, keyPrefix: prefix });
}

const drive = (store: StateStore, n: number) => driveAdmissions(store, n, INFLIGHT);

const server = await startRedisServer();
const probe = new Redis(server.url);
const serverPid = Number(/process_id:(\d+)/.exec(await probe.info('server'))?.[1]);
if (f.has('pin')) {
  execFileSync('taskset', ['-a', '-p', '-c', '1', String(serverPid)], { stdio: 'ignore' });
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
}
const counters = async () => {
  const cpu = await probe.info('cpu');
  const stats = await probe.info('commandstats');
  const n = (re: RegExp, s: string) => Number(re.exec(s)?.[1] ?? 0);
  return {
    cpuUs: (n(/used_cpu_user:([\d.]+)/, cpu) + n(/used_cpu_sys:([\d.]+)/, cpu)) * 1e6,
    calls: n(/cmdstat_evalsha:calls=(\d+)/, stats) + n(/cmdstat_eval:calls=(\d+)/, stats),
    execUs: n(/cmdstat_evalsha:calls=\d+,usec=(\d+)/, stats) + n(/cmdstat_eval:calls=\d+,usec=(\d+)/, stats),
  };
};
const stores = { A: await loadStore(trees.A, 'ab-A:', server.url), B: await loadStore(trees.B, 'ab-B:', server.url) };
const results = { A: [] as number[][], B: [] as number[][] };
try {
  process.stdout.write(`load ${os.loadavg()[0]!.toFixed(2)}; ${INFLIGHT} in flight, ${REQUESTS} requests per round; A ${trees.A}, B ${trees.B}\n`);
  for (const v of ['A', 'B'] as const) await drive(stores[v], 3_000);
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const s0 = await counters();
      const c0 = process.cpuUsage();
      await drive(stores[v], REQUESTS);
      const c = process.cpuUsage(c0);
      const s1 = await counters();
      const row = [(s1.cpuUs - s0.cpuUs) / REQUESTS, (s1.execUs - s0.execUs) / REQUESTS, (s1.calls - s0.calls) / REQUESTS, (c.user + c.system) / REQUESTS];
      results[v].push(row);
      process.stdout.write(`round ${round + 1} ${v}: server ${row[0]!.toFixed(1)} µs, execution ${row[1]!.toFixed(1)} µs, ${row[2]!.toFixed(3)} calls, client ${row[3]!.toFixed(1)} µs per request\n`);
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const v of ['A', 'B'] as const) {
    const col = (i: number) => med(results[v].map((r) => r[i]!));
    process.stdout.write(`median ${v}: server ${col(0).toFixed(1)} µs, execution ${col(1).toFixed(1)} µs, ${col(2).toFixed(3)} calls, client ${col(3).toFixed(1)} µs per request\n`);
  }
  process.stdout.write(`load ${os.loadavg()[0]!.toFixed(2)} at the end\n`);
} finally {
  await stores.A.close();
  await stores.B.close();
  probe.disconnect();
  await server.stop();
}
