// What runtime keys (issue 37) cost on the request path, and whether that cost depends on how many
// exist. Two gateways from dist/main.js with the same YAML (default log level and metrics on; one
// config key `cfg` and one admin key), each on its own prefix of one redis-server on loopback (or
// its own file-backend directory), differing only in what the store holds:
//   one   — 1 runtime key;
//   many  — 10,000 runtime keys (--keys), seeded straight into the store (lib/seed-keys.ts) and
//           checked through the admin API before anything is measured.
// Every key (config or runtime) has the same limits and monthly budget, far above the load, so every
// request goes through the same atomic admission and settlement. Measured interleaved at saturation
// (autocannon, messages→messages pass-through, non-streamed), with the gateway's CPU per request
// from /proc and redis-server's from INFO cpu:
//   config@1   — gateway `one`, the config key;
//   runtime@1  — gateway `one`, its runtime key;
//   runtime@N  — gateway `many`, one of its runtime keys.
// Ratios (median of the per-run ratios): runtime@N : runtime@1 (authentication flat in the number of
// keys; target ≈ 1.00×) and runtime@1 : config@1 (admission of a runtime key; target ≈ 1.00×).
// Then what a change costs: POST /admin/keys and DELETE /admin/keys/{name} one after another on each
// gateway (latency, and the gateway's CPU per change), and the time of one full read of the records.
//
//   npm run bench:keys [-- --quick] [--backend redis|file] [--keys N] [--duration S] [--runs N]
//     [--connections N] [--changes N]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { stringify } from 'yaml';
import { FileStateStore } from '../src/state/file-store.js';
import { RedisStateStore } from '../src/state/redis-store.js';
import type { StateStore } from '../src/state/types.js';
import { startRedisServer, type RedisServer } from '../test/support/redis-server.js';
import { parseFlags } from './cli-flags.js';
import { ENDPOINT, requestBody, requestHeaders } from './request-bodies.js';
import { gatewayConfig } from './lib/gateway-config.js';
import { gatewayModel } from './lib/lanes.js';
import { cpuSeconds, threadCpuSeconds } from './lib/proc-stats.js';
import { saturate } from './lib/load.js';
import { seedName, seedRuntimeKeys, type SeededKey } from './lib/seed-keys.js';
import { freePort, startService, stopAll, type Service } from './lib/services.js';
import { median, summarize } from './lib/stats.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const log = (msg: string) => process.stderr.write(`[keys-bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** Far above anything this bench sends: admission and settlement run, nothing is refused. */
const LIMITS = { rpm: 100_000_000, tpm: 1_000_000_000_000, concurrency: 1_000_000 };
const BUDGET = { usd: 1_000_000_000, period: 'month' as const };
const CONFIG_KEY = 'sk-bench-config';
const ADMIN_KEY = 'sk-bench-admin';

type Gw = 'one' | 'many';
type Variant = 'config@1' | 'runtime@1' | 'runtime@N';

async function main(): Promise<void> {
  const f = parseFlags(process.argv.slice(2));
  const quick = f.has('quick');
  const num = (name: string, d: number) => (f.has(name) ? Number(f.get(name)) : d);
  const durationS = num('duration', quick ? 2 : 4);
  const runs = num('runs', quick ? 3 : 5);
  const connections = num('connections', 64);
  const keyCount = num('keys', 10_000);
  const changes = num('changes', quick ? 10 : 30);
  const backend = (f.get('backend') ?? 'redis') as 'redis' | 'file';
  if (backend !== 'redis' && backend !== 'file') throw new Error('--backend: redis or file');
  const entry = path.resolve(REPO, f.get('gateway-entry') ?? 'dist/main.js');
  const VARIANTS: Variant[] = ['config@1', 'runtime@1', 'runtime@N'];
  const gwOf: Record<Variant, Gw> = { 'config@1': 'one', 'runtime@1': 'one', 'runtime@N': 'many' };

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-keys-bench-'));
  let redis: RedisServer | undefined;
  let probe: Redis | undefined;
  const stores: StateStore[] = [];
  try {
    const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', '0'] });
    if (backend === 'redis') {
      redis = await startRedisServer();
      probe = new Redis(redis.url, { lazyConnect: true });
      probe.on('error', () => {});
      await probe.connect();
    }
    const redisCpuS = async (): Promise<number> => {
      if (!probe) return 0;
      const info = await probe.info('cpu');
      const n = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
      return n('used_cpu_user') + n('used_cpu_sys');
    };
    const stateOf = (g: Gw) => (backend === 'redis' ? { backend: 'redis', url: redis!.url, key_prefix: `keys-bench-${g}:` } : { backend: 'file', path: path.join(tmp, `state-${g}`) });
    const openStore = (g: Gw): StateStore => {
      const s = backend === 'redis' ? new RedisStateStore({ url: redis!.url, keyPrefix: `keys-bench-${g}:` }) : new FileStateStore({ path: path.join(tmp, `state-${g}`) });
      stores.push(s);
      return s;
    };

    // Seed before the gateways start: their first read then has every key.
    const count: Record<Gw, number> = { one: 1, many: keyCount };
    const seeded = {} as Record<Gw, SeededKey[]>;
    const fullReadMs = {} as Record<Gw, number>;
    for (const g of ['one', 'many'] as Gw[]) {
      const store = openStore(g);
      const t0 = performance.now();
      seeded[g] = await seedRuntimeKeys(store, { count: count[g], fields: () => ({ limits: LIMITS, budget: BUDGET }) });
      log(`${g}: seeded ${count[g]} runtime keys on ${backend} in ${Math.round(performance.now() - t0)} ms`);
      // What every change costs each gateway today: one read of every record (median of 5).
      const reads: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r0 = performance.now();
        const snap = await store.readRecords();
        reads.push(performance.now() - r0);
        if (snap.records.size !== count[g]) throw new Error(`${g}: the store holds ${snap.records.size} records, not ${count[g]}`);
      }
      fullReadMs[g] = median(reads);
    }
    // The measured key: the middle one of `many` (same fields as `one`'s only key).
    const measured: Record<Gw, SeededKey> = { one: seeded.one[0]!, many: seeded.many[Math.floor(keyCount / 2)]! };

    const gateways = {} as Record<Gw, Service>;
    for (const g of ['one', 'many'] as Gw[]) {
      const port = await freePort();
      // Default log level (info: one line per request) and metrics on, as users run it.
      const base = gatewayConfig({ port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 2048 });
      const models = Object.fromEntries(Object.entries(base.models as Record<string, object>).map(([k, m]) => [k, { ...m, price: { input: 3, output: 15 } }]));
      const auth = { keys: [{ name: 'cfg', key: CONFIG_KEY, limits: LIMITS, budget: BUDGET }], admin_keys: [{ name: 'ops', key: ADMIN_KEY }] };
      const file = path.join(tmp, `${g}.yaml`);
      writeFileSync(file, stringify({ ...base, models, state: stateOf(g), auth }));
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
      delete env.SWITCHYARD_CONFIG;
      gateways[g] = await startService({ name: `gateway-${g}`, cwd: REPO, args: [entry, '--config', file], port, env, timeoutMs: 20_000, stdoutFile: path.join(tmp, `${g}.log`) });
    }

    // The gateways see the seeded keys: the admin list has them all, and sample keys authenticate.
    for (const g of ['one', 'many'] as Gw[]) {
      const list = await call(gateways[g], 'GET', '/admin/keys');
      const names = ((list.json as { data?: { name: string }[] } | undefined)?.data ?? []).map((k) => k.name);
      if (list.status !== 200 || names.length !== count[g] || names[0] !== seedName(0)) throw new Error(`${g}: GET /admin/keys gave ${list.status} with ${names.length} keys`);
      const sample = [seeded[g][0]!, seeded[g].at(-1)!, measured[g], seeded[g][Math.floor(Math.random() * count[g])]!];
      for (const k of sample) {
        const r = await modelRequest(gateways[g], k.secret);
        if (r !== 200) throw new Error(`${g}: runtime key ${k.name} answered ${r}`);
      }
      const unknown = await modelRequest(gateways[g], 'sk-sy-rt-' + 'x'.repeat(43));
      if (unknown !== 401) throw new Error(`${g}: an unknown runtime-format key answered ${unknown}, not 401`);
      log(`${g}: the gateway lists ${names.length} runtime keys; ${sample.length} sampled keys answer 200, an unknown one 401`);
    }

    const keyOf: Record<Variant, string> = { 'config@1': CONFIG_KEY, 'runtime@1': measured.one.secret, 'runtime@N': measured.many.secret };
    const target = (v: Variant) => ({
      url: gateways[gwOf[v]].origin + ENDPOINT.messages,
      headers: { ...requestHeaders('messages'), 'x-api-key': keyOf[v] },
      body: requestBody('messages', gatewayModel('messages', false), false),
    });
    // Warm-up: JIT, connections, the first admissions of each key.
    for (const v of VARIANTS) await saturate(target(v), 16, 1);

    const series = () => Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
    const rps = series();
    const gwCpu = series();
    const redisCpu = series();
    for (let run = 0; run < runs; run++) {
      // Alternate the order so drift in the machine's load does not favour one variant.
      const order = run % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const v of order) {
        const pid = gateways[gwOf[v]].pid;
        const g0 = cpuSeconds(pid);
        const r0 = await redisCpuS();
        const sat = await saturate(target(v), connections, durationS);
        const gUs = ((cpuSeconds(pid) - g0) * 1e6) / sat.ok;
        const rUs = (((await redisCpuS()) - r0) * 1e6) / sat.ok;
        rps[v].push(sat.rps);
        gwCpu[v].push(gUs);
        redisCpu[v].push(rUs);
        log(`run ${run + 1}/${runs} ${v.padEnd(9)} ${Math.round(sat.rps)}/s, gateway ${gUs.toFixed(0)} µs CPU/req, redis-server ${rUs.toFixed(1)} µs CPU/req (non-2xx ${sat.non2xx}, errors ${sat.errors})`);
        if (sat.non2xx > 0 || sat.errors > 0) throw new Error(`${v}: requests failed (${sat.non2xx} non-2xx, ${sat.errors} errors)`);
      }
    }
    const ratio = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!));

    // A change: create, then revoke, one at a time, on each gateway.
    const changeRows: { gw: Gw; keys: number; createP50Ms: number; createMaxMs: number; revokeP50Ms: number; revokeMaxMs: number; gatewayCpuMsPerChange: number; fullReadMs: number }[] = [];
    for (const g of ['one', 'many'] as Gw[]) {
      const gw = gateways[g];
      const creates: number[] = [];
      const revokes: number[] = [];
      // Per-thread schedstat: /proc/PID/stat's 10 ms ticks are too coarse for a few dozen changes.
      const c0 = threadCpuSeconds(gw.pid);
      for (let i = 0; i < changes; i++) {
        const t0 = performance.now();
        const r = await call(gw, 'POST', '/admin/keys', { name: `change-${i}`, limits: LIMITS });
        creates.push(performance.now() - t0);
        if (r.status !== 201) throw new Error(`${g}: POST /admin/keys answered ${r.status}`);
      }
      for (let i = 0; i < changes; i++) {
        const t0 = performance.now();
        const r = await call(gw, 'DELETE', `/admin/keys/change-${i}`);
        revokes.push(performance.now() - t0);
        if (r.status !== 204) throw new Error(`${g}: DELETE /admin/keys answered ${r.status}`);
      }
      const cpuMs = ((threadCpuSeconds(gw.pid) - c0) * 1000) / (2 * changes);
      const c = summarize(creates);
      const d = summarize(revokes);
      changeRows.push({ gw: g, keys: count[g], createP50Ms: c.p50, createMaxMs: c.max, revokeP50Ms: d.p50, revokeMaxMs: d.max, gatewayCpuMsPerChange: cpuMs, fullReadMs: fullReadMs[g] });
      log(`${g}: POST /admin/keys p50 ${c.p50.toFixed(1)} ms (max ${c.max.toFixed(1)}), DELETE p50 ${d.p50.toFixed(1)} ms (max ${d.max.toFixed(1)}), gateway ${cpuMs.toFixed(1)} ms CPU per change`);
    }

    const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
    const N = keyCount.toLocaleString('en-US');
    process.stdout.write(
      `\nruntime keys (${backend}; messages→messages, non-streamed, ${connections} connections; median of ${runs} runs, ${durationS} s each; ${os.cpus().length} CPUs, load average ${load})\n`,
    );
    process.stdout.write('variant     keys in store   req/s   gateway CPU/req   redis CPU/req\n');
    for (const v of VARIANTS) {
      const keys = v === 'runtime@N' ? N : '1';
      process.stdout.write(`${v.replace('@N', '@' + N).padEnd(14)} ${keys.padStart(8)} ${String(Math.round(median(rps[v]))).padStart(8)} ${median(gwCpu[v]).toFixed(0).padStart(10)} µs ${median(redisCpu[v]).toFixed(1).padStart(10)} µs\n`);
    }
    const ratios = {
      authRps: ratio(rps['runtime@N'], rps['runtime@1']),
      authCpu: ratio(gwCpu['runtime@N'], gwCpu['runtime@1']),
      admissionRps: ratio(rps['runtime@1'], rps['config@1']),
      admissionCpu: ratio(gwCpu['runtime@1'], gwCpu['config@1']),
    };
    process.stdout.write(`${N}:1 keys   req/s ${ratios.authRps.toFixed(2)}×, gateway CPU/req ${ratios.authCpu.toFixed(2)}×   (target ≈ 1.00×)\n`);
    process.stdout.write(`runtime:config req/s ${ratios.admissionRps.toFixed(2)}×, gateway CPU/req ${ratios.admissionCpu.toFixed(2)}×   (target ≈ 1.00×)\n`);
    process.stdout.write('\nchanges (one at a time)   POST /admin/keys p50 / max   DELETE p50 / max   gateway CPU per change   one full read of the records\n');
    for (const r of changeRows) {
      process.stdout.write(
        `${(r.keys.toLocaleString('en-US') + ' keys').padEnd(26)} ${r.createP50Ms.toFixed(1).padStart(8)} / ${r.createMaxMs.toFixed(1)} ms ${r.revokeP50Ms.toFixed(1).padStart(10)} / ${r.revokeMaxMs.toFixed(1)} ms ${r.gatewayCpuMsPerChange.toFixed(1).padStart(12)} ms ${r.fullReadMs.toFixed(1).padStart(16)} ms\n`,
      );
    }
    process.stdout.write(JSON.stringify({ backend, keyCount, runs, durationS, load: os.loadavg(), rps, gwCpu, redisCpu, ratios, changes: changeRows }) + '\n');
  } finally {
    await stopAll();
    for (const s of stores) await s.close().catch(() => {});
    await probe?.quit().catch(() => {});
    await redis?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function call(gw: Service, method: 'GET' | 'POST' | 'DELETE', p: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await request(gw.origin + p, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

async function modelRequest(gw: Service, key: string): Promise<number> {
  const res = await request(gw.origin + ENDPOINT.messages, {
    method: 'POST',
    headers: { ...requestHeaders('messages'), 'x-api-key': key },
    body: requestBody('messages', gatewayModel('messages', false), false),
  });
  await res.body.dump();
  return res.statusCode;
}

main().catch((err: unknown) => {
  process.stderr.write(`keys-bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
