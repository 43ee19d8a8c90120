// What keys with limits, budgets and cost accounting add to a request: the same gateway, lane
// (messages→messages pass-through, non-streamed) and caller key, measured three ways, interleaved:
//   off    — the key has no limits and no budget: admission makes no state call;
//   file   — rpm, tpm, concurrency and a monthly budget on the file (LMDB) state backend;
//   redis  — the same on a redis-server on loopback;
//   base   — (with --base <other build's main.js>) the same as redis, on another build: an A/B of the
//            Redis path in one run.
// The limits are far above the load, so nothing is refused: what is measured is the admission call,
// the rate-limit headers, the cost lookup and the settlement after each answer.
// Besides latency and throughput, each saturation round reports CPU µs per request of the gateway
// (/proc) and of redis-server (INFO cpu): on a shared machine those hold better than req/s.
//
//   npm run build && node --import tsx bench/access-overhead.ts [--duration S] [--runs N] [--rate N]
//     [--connections N] [--variants off,file,redis] [--base DIR/dist/main.js] [--pin] [--cpu-prof DIR]
// --pin: the gateway under test alone on CPU 0, redis-server and everything else on CPU 1 (issue 25).
// ACCESS_BENCH_COMMANDSTATS=1: redis-server's INFO commandstats at the end (the commands inside the scripts too).
//
// Targets (issue 12): added p50 at 100 req/s ≤ 100 µs (file) / 200 µs (redis); saturation throughput
// at most 15 % below `off`. Without --pin nothing is pinned (run.ts pins; this one is a focused comparison).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { startRedisServer, type RedisServer } from '../test/support/redis-server.js';
import { parseFlags } from './cli-flags.js';
import { ENDPOINT, requestBody, requestHeaders } from './request-bodies.js';
import { fixedRate } from './lib/fixed-rate.js';
import { gatewayConfig } from './lib/gateway-config.js';
import { gatewayModel } from './lib/lanes.js';
import { Pinner } from './lib/pinning.js';
import { cpuSeconds } from './lib/proc-stats.js';
import { saturate } from './lib/load.js';
import { freePort, startService, stopAll, type Service } from './lib/services.js';
import { median, summarize } from './lib/stats.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const log = (msg: string) => process.stderr.write(`[access-bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

type Variant = 'off' | 'file' | 'redis' | 'base';
/** Far above anything this bench sends: admission and settlement run, nothing is refused. */
const LIMITS = { rpm: 100_000_000, tpm: 1_000_000_000_000, concurrency: 1_000_000 };

async function main(): Promise<void> {
  const f = parseFlags(process.argv.slice(2));
  const num = (name: string, d: number) => (f.has(name) ? Number(f.get(name)) : d);
  const durationS = num('duration', 4);
  const runs = num('runs', 3);
  const rate = num('rate', 100);
  const connections = num('connections', 64);
  const entry = path.resolve(REPO, f.get('gateway-entry') ?? 'dist/main.js');
  const baseEntry = f.has('base') ? path.resolve(f.get('base')!) : undefined;
  const VARIANTS = ((f.get('variants') ?? 'off,file,redis').split(',') as Variant[]).concat(baseEntry ? ['base'] : []);
  const usesRedis = VARIANTS.some((v) => v === 'redis' || v === 'base');
  const pinner = new Pinner(f.has('pin'));
  // --cpu-prof DIR: each gateway writes a .cpuprofile there when it stops (warm-up and latency rounds included).
  const profDir = f.get('cpu-prof');
  const profArgs = (v: Variant): string[] => (profDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profDir, v)] : []);

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-access-bench-'));
  let redis: RedisServer | undefined;
  try {
    const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', '0'] });
    redis = await startRedisServer();
    const probe = new Redis(redis.url, { lazyConnect: true });
    probe.on('error', () => {});
    await probe.connect();
    const redisPid = Number(/process_id:(\d+)/.exec(await probe.info('server'))?.[1]);
    const redisCpuS = async (): Promise<number> => {
      const info = await probe.info('cpu');
      const num = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
      return num('used_cpu_user') + num('used_cpu_sys');
    };
    const scriptCalls = async (): Promise<number> => {
      const stats = await probe.info('commandstats');
      return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0) + Number(/cmdstat_eval:calls=(\d+)/.exec(stats)?.[1] ?? 0);
    };
    const gateways = {} as Record<Variant, Service>;
    for (const v of VARIANTS) {
      const port = await freePort();
      const base = gatewayConfig({ port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 2048, logLevel: 'warn' });
      const key = { name: 'bench', key: 'sk-bench', ...(v === 'off' ? {} : { limits: LIMITS, budget: { usd: 1_000_000_000, period: 'month' } }) };
      const state =
        v === 'file' ? { backend: 'file', path: path.join(tmp, 'state') } : v === 'redis' || v === 'base' ? { backend: 'redis', url: redis.url, key_prefix: `access-bench-${v}:` } : { backend: 'memory' };
      // Priced, so every answer's cost is computed and charged.
      const models = Object.fromEntries(Object.entries(base.models as Record<string, object>).map(([k, m]) => [k, { ...m, price: { input: 3, output: 15 } }]));
      const file = path.join(tmp, `${v}.yaml`);
      writeFileSync(file, stringify({ ...base, models, state, auth: { keys: [key] } }));
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
      delete env.SWITCHYARD_CONFIG;
      gateways[v] = await startService({ name: `gateway-${v}`, cwd: REPO, args: [...profArgs(v), v === 'base' ? baseEntry! : entry, '--config', file], port, healthPath: '/healthz', env, timeoutMs: 20_000 });
    }
    const others = [upstream.pid, ...(usesRedis ? [redisPid] : [])];
    const arrange = (v: Variant) => pinner.arrange(gateways[v].pid, [...others, ...VARIANTS.filter((o) => o !== v).map((o) => gateways[o].pid)]);

    const target = (v: Variant) => ({
      origin: gateways[v].origin,
      path: ENDPOINT.messages,
      headers: requestHeaders('messages'),
      body: requestBody('messages', gatewayModel('messages', false), false),
      terminal: '',
    });
    // Warm-up: JIT, connections, the state backends' first writes.
    for (const v of VARIANTS) {
      arrange(v);
      await saturate({ url: target(v).origin + target(v).path, headers: target(v).headers, body: target(v).body }, 16, 1);
    }

    const series = () => Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
    const p50 = series();
    const rps = series();
    const gwCpu = series();
    const redisCpu = series();
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const v of order) {
        arrange(v);
        const r = await fixedRate(target(v), rate, durationS);
        const s = summarize(r.latenciesUs);
        p50[v].push(s.p50);
        log(`run ${run + 1}/${runs} ${v.padEnd(5)} ${rate}/s: p50 ${Math.round(s.p50)} µs p99 ${Math.round(s.p99)} µs (${s.count} samples, ${r.failures} failures)`);
        const t = target(v);
        const g0 = cpuSeconds(gateways[v].pid);
        const r0 = usesRedis ? await redisCpuS() : 0;
        const k0 = usesRedis ? await scriptCalls() : 0;
        const sat = await saturate({ url: t.origin + t.path, headers: t.headers, body: t.body }, connections, durationS);
        const gUs = ((cpuSeconds(gateways[v].pid) - g0) * 1e6) / sat.ok;
        // The probe's own INFO call is in the delta too: a few µs over a whole round.
        const rUs = usesRedis ? (((await redisCpuS()) - r0) * 1e6) / sat.ok : 0;
        const calls = usesRedis ? ((await scriptCalls()) - k0) / sat.ok : 0;
        rps[v].push(sat.rps);
        gwCpu[v].push(gUs);
        redisCpu[v].push(rUs);
        log(
          `run ${run + 1}/${runs} ${v.padEnd(5)} saturation: ${Math.round(sat.rps)}/s, gateway ${gUs.toFixed(0)} µs CPU/req, redis-server ${rUs.toFixed(1)} µs CPU/req, ${calls.toFixed(2)} script calls/req (non-2xx ${sat.non2xx}, errors ${sat.errors})`,
        );
        if (r.failures > 0 || sat.non2xx > 0 || sat.errors > 0) throw new Error(`${v}: requests failed (${r.firstFailure ?? `${sat.non2xx} non-2xx`})`);
      }
    }

    const rows = VARIANTS.map((v) => {
      const medP50 = median(p50[v]);
      const medRps = median(rps[v]);
      return {
        variant: v,
        p50Us: Math.round(medP50),
        addedP50Us: Math.round(medP50 - median(p50.off)),
        rps: Math.round(medRps),
        // Within-run ratios, median over runs (as run.ts): the machine's load drifts between runs.
        throughputDropPct: Math.round((1 - median(rps[v].map((r, i) => r / rps.off[i]!))) * 1000) / 10,
        addedP50MedianOfRunsUs: Math.round(median(p50[v].map((x, i) => x - p50.off[i]!))),
        gatewayCpuUs: Math.round(median(gwCpu[v])),
        redisCpuUs: Math.round(median(redisCpu[v]) * 10) / 10,
      };
    });
    if (process.env.ACCESS_BENCH_COMMANDSTATS) process.stderr.write((await probe.info('commandstats')) + '\n');
    await probe.quit();
    if (profDir) {
      // SIGINT: no drain delay, so the profile is written before stopAll's SIGKILL.
      for (const v of VARIANTS) gateways[v].child.kill('SIGINT');
      for (let i = 0; i < 100 && VARIANTS.some((v) => !gateways[v].exited()); i++) await new Promise((r) => setTimeout(r, 100));
    }
    process.stdout.write(
      `\naccess overhead (messages→messages, non-streamed; median of ${runs} runs, ${durationS} s each; ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(2)}; pinning ${pinner.info.reason})\n`,
    );
    process.stdout.write('variant  p50@' + rate + '/s  added p50 (pooled / per run)  saturation  drop (per-run ratio)  gateway CPU/req  redis CPU/req\n');
    for (const r of rows) {
      process.stdout.write(
        `${r.variant.padEnd(8)} ${String(r.p50Us).padStart(7)} µs ${String(r.addedP50Us).padStart(7)} µs / ${String(r.addedP50MedianOfRunsUs).padStart(5)} µs ${String(r.rps).padStart(8)}/s ${String(r.throughputDropPct).padStart(5)} % ${String(r.gatewayCpuUs).padStart(8)} µs ${String(r.redisCpuUs).padStart(8)} µs\n`,
      );
    }
    process.stdout.write(JSON.stringify({ rows, p50, rps, gwCpu, redisCpu }) + '\n');
  } finally {
    await stopAll();
    await redis?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`access-bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
