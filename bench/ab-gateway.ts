// Two builds of the gateway side by side (A = before, B = after a change), measured in interleaved
// bursts against one fake upstream: CPU µs per request of each (process CPU time / requests completed,
// from /proc), per round, and the median of the per-round B/A ratios. Interleaving in short bursts puts
// both builds under the same background load, so on a shared machine the ratio is far steadier than
// either figure alone. Both run the default config (log line at info to a file, metrics on).
//
//   npm run build && cp -r dist bench/results/dist-a   # the "before" build, then change and rebuild
//   node --import tsx bench/ab-gateway.ts --a bench/results/dist-a/main.js --b dist/main.js \
//     --lane messages-messages [--stream] [--rounds 8] [--burst 2] [--warmup 3] [--connections 64] [--rate 100]
//
// --rate N: open-loop at N requests/s (lib/fixed-rate.ts) instead of saturation.
// --store: one build (--b, default dist/main.js) and ONE gateway process; A sends `store: false`, B leaves
// `store` unset (the Responses default: the answer is stored). B − A is what storing costs per request.
// --store-false: both builds are sent `store: false` (the Responses-door lanes without the store path).
// --log-level-a LEVEL / --log-level-b LEVEL: that build's `log.level` (default: unset, i.e. info).
// --metrics-off-a / --metrics-off-b: that build runs with `metrics.enabled: false`.
// --node-flags-a 'FLAGS' / --node-flags-b 'FLAGS': node options for that build's process (e.g. --max-semi-space-size=32).
// --args-a 'ARGS' / --args-b 'ARGS': arguments after the entry's (e.g. `--args-b=--bare` for bench/card-floor-proxy.ts).
// --syscalls: instead of CPU, count each build's system calls per request with `strace -c` attached for
// one burst (strace slows the gateway many times over: the counts are the figure, not the timing).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags } from './cli-flags.js';
import { fixedRate } from './lib/fixed-rate.js';
import { writeGatewayConfig } from './lib/gateway-config.js';
import { gatewayModel, LANES } from './lib/lanes.js';
import { saturate } from './lib/load.js';
import { cpuSeconds } from './lib/proc-stats.js';
import { freePort, startService, stopAll, type Service } from './lib/services.js';
import { requestBody, requestHeaders, requestPath } from './request-bodies.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const storeAB = flags.has('store');
  const entries = { A: path.resolve(REPO, flags.get('a') ?? ''), B: path.resolve(REPO, flags.get('b') ?? 'dist/main.js') };
  if (!flags.get('a') && !storeAB) throw new Error('--a ENTRY (the "before" build) is required');
  const lane = LANES.find((l) => l.id === (flags.get('lane') ?? 'messages-messages'));
  if (!lane) throw new Error(`--lane: one of ${LANES.map((l) => l.id).join(', ')}`);
  const stream = flags.has('stream');
  const rounds = Number(flags.get('rounds') ?? 8);
  const burstS = Number(flags.get('burst') ?? 2);
  const connections = Number(flags.get('connections') ?? 64);
  const rate = flags.has('rate') ? Number(flags.get('rate')) : null;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-ab-'));
  try {
    const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', '0'] });
    const gateways: Record<'A' | 'B', Service> = {} as Record<'A' | 'B', Service>;
    for (const k of ['A', 'B'] as const) {
      if (storeAB && k === 'A') continue;
      const port = await freePort();
      const config = path.join(tmp, `gateway-${k}.yaml`);
      writeGatewayConfig(config, { port, metrics: !flags.has(`metrics-off-${k.toLowerCase()}`), upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 2048, logLevel: flags.get(`log-level-${k.toLowerCase()}`) });
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
      delete env.SWITCHYARD_CONFIG;
      gateways[k] = await startService({ name: `gateway-${k}`, cwd: REPO, args: [...(flags.get(`node-flags-${k.toLowerCase()}`)?.split(' ').filter(Boolean) ?? []), entries[k], '--config', config, ...(flags.get(`args-${k.toLowerCase()}`)?.split(' ').filter(Boolean) ?? [])], port, stdoutFile: path.join(tmp, `gateway-${k}.log`), env });
    }
    if (storeAB) {
      if (lane.door !== 'responses') throw new Error('--store: a lane through the Responses door');
      gateways.A = gateways.B;
    }
    const run = async (k: 'A' | 'B', seconds: number): Promise<{ ok: number; cpuS: number }> => {
      const g = gateways[k];
      const target = { url: g.origin + requestPath(lane.door, gatewayModel(lane.upstream, false), stream), headers: requestHeaders(lane.door), body: requestBody(lane.door, gatewayModel(lane.upstream, false), stream, (storeAB && k === 'A') || flags.has('store-false') ? { store: false } : {}) };
      const c0 = cpuSeconds(g.pid);
      let ok: number;
      if (rate === null) {
        const r = await saturate(target, connections, seconds);
        if (r.non2xx || r.errors) throw new Error(`${k}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        ok = r.ok;
      } else {
        const f = await fixedRate({ origin: g.origin, path: requestPath(lane.door, gatewayModel(lane.upstream, false), stream), headers: target.headers, body: target.body, terminal: '' }, rate, seconds);
        if (f.failures) throw new Error(`${k}: ${f.failures} failures`);
        ok = f.latenciesUs.length;
      }
      return { ok, cpuS: cpuSeconds(g.pid) - c0 };
    };
    if (flags.has('syscalls')) {
      for (const k of ['A', 'B'] as const) {
        await run(k, 1);
        const out = path.join(tmp, `strace-${k}.txt`);
        const tracer = spawn('strace', ['-f', '-c', '-o', out, '-p', String(gateways[k].pid)], { stdio: 'ignore' });
        await new Promise((r) => setTimeout(r, 500));
        const r = await run(k, burstS);
        const exited = new Promise((resolve) => tracer.once('exit', resolve));
        tracer.kill('SIGINT');
        await exited;
        const rows = readFileSync(out, 'utf8')
          .split('\n')
          .map((l) => l.trim().split(/\s+/))
          .filter((f) => f.length >= 5 && /^\d/.test(f[0]!) && f[f.length - 1] !== 'total');
        const per = rows
          .map((f) => ({ name: f[f.length - 1]!, calls: Number(f[3]) }))
          .sort((a, b) => b.calls - a.calls)
          .slice(0, 12)
          .map((x) => `${x.name} ${(x.calls / r.ok).toFixed(2)}`);
        const total = rows.reduce((n, f) => n + Number(f[3]), 0);
        process.stdout.write(`${k}: ${r.ok} ${stream ? 'streams' : 'requests'}, ${(total / r.ok).toFixed(2)} syscalls each: ${per.join(', ')}\n`);
      }
      return;
    }
    // Warm-up (start-up and first JIT) outside the figures.
    const warmS = Number(flags.get('warmup') ?? 3);
    await run('A', warmS);
    await run('B', warmS);
    const perReq: Record<'A' | 'B', number[]> = { A: [], B: [] };
    const ratios: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const order: ('A' | 'B')[] = i % 2 ? ['B', 'A'] : ['A', 'B'];
      const got: Partial<Record<'A' | 'B', number>> = {};
      for (const k of order) {
        const r = await run(k, burstS);
        got[k] = (r.cpuS * 1e6) / r.ok;
        perReq[k].push(got[k]!);
      }
      ratios.push(got.B! / got.A!);
      process.stdout.write(`round ${i + 1}: A ${got.A!.toFixed(0)} µs  B ${got.B!.toFixed(0)} µs  B/A ${(got.B! / got.A!).toFixed(3)}\n`);
    }
    for (const k of ['A', 'B'] as const) {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${gateways[k].pid}/status`, 'utf8'))?.[1];
      if (hwm) process.stdout.write(`${k}: peak RSS (VmHWM) ${(Number(hwm) / 1024).toFixed(1)} MiB\n`);
    }
    const mode = rate === null ? `saturation, ${connections} connections` : `${rate} req/s`;
    process.stdout.write(
      `${lane.id}${stream ? ' streams' : ''} (${mode}), ${rounds} rounds of ${burstS} s: CPU µs per ${stream ? 'stream' : 'request'} ` +
        `A ${median(perReq.A).toFixed(0)}, B ${median(perReq.B).toFixed(0)}; median B/A ${median(ratios).toFixed(3)} ` +
        `(range ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})\n`,
    );
  } finally {
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
