// What the status page costs the request path (issue 23: ≤ 2 % apart): the same gateway twice, with
// `status.enabled: false` and with `status.enabled: true` plus one client polling /status.json every
// 2 s as an open page does, measured interleaved at saturation on one lane (messages→messages
// pass-through, non-streamed). The figure is the gateway's CPU µs per request (/proc, user + system,
// over the measurement, divided by the requests it completed): steadier than req/s on a shared machine.
//
//   npm run build && node --import tsx bench/status-overhead.ts [--quick] [--duration S] [--runs N] [--connections N]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { parseFlags } from './cli-flags.js';
import { gatewayConfig } from './lib/gateway-config.js';
import { gatewayModel } from './lib/lanes.js';
import { saturate } from './lib/load.js';
import { CpuMeter } from './lib/proc-stats.js';
import { freePort, startService, stopAll, type Service } from './lib/services.js';
import { median } from './lib/stats.js';
import { ENDPOINT, requestBody, requestHeaders } from './request-bodies.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const log = (msg: string) => process.stderr.write(`[status-bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

type Variant = 'off' | 'on';
const VARIANTS: Variant[] = ['off', 'on'];

async function main(): Promise<void> {
  const f = parseFlags(process.argv.slice(2));
  const quick = f.has('quick');
  const num = (name: string, d: number) => (f.has(name) ? Number(f.get(name)) : d);
  const durationS = num('duration', quick ? 2 : 5);
  const runs = num('runs', quick ? 3 : 5);
  const connections = num('connections', 64);
  const entry = path.resolve(REPO, f.get('gateway-entry') ?? 'dist/main.js');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-status-bench-'));
  try {
    const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', '0'] });
    const gateways = {} as Record<Variant, Service>;
    for (const v of VARIANTS) {
      const port = await freePort();
      // The default users run (log info, metrics on), the status page off or on.
      const base = gatewayConfig({ port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 2048 });
      const file = path.join(tmp, `${v}.yaml`);
      writeFileSync(file, stringify({ ...base, status: { enabled: v === 'on' } }));
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
      delete env.SWITCHYARD_CONFIG;
      gateways[v] = await startService({ name: `gateway-status-${v}`, cwd: REPO, args: [entry, '--config', file], port, healthPath: '/healthz', env, timeoutMs: 20_000, stdoutFile: path.join(tmp, `${v}.log`) });
    }
    const target = (v: Variant) => ({ url: gateways[v].origin + ENDPOINT.messages, headers: requestHeaders('messages'), body: requestBody('messages', gatewayModel('messages', false), false) });
    for (const v of VARIANTS) await saturate(target(v), connections, 3); // warm-up: JIT, connections

    const cpuUs: Record<Variant, number[]> = { off: [], on: [] };
    const rps: Record<Variant, number[]> = { off: [], on: [] };
    let polls = 0;
    for (let run = 0; run < runs; run++) {
      for (const v of run % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        // The open page: one poll every 2 s for the whole measurement.
        const poll = async () => {
          const res = await fetch(gateways[v].origin + '/status.json').catch(() => undefined);
          if (res?.ok) {
            await res.arrayBuffer();
            polls++;
          }
        };
        const poller = v === 'on' ? setInterval(() => void poll(), 2000) : undefined;
        if (v === 'on') void poll();
        const meter = new CpuMeter(gateways[v].pid, []);
        const sat = await saturate(target(v), connections, durationS);
        const cpu = meter.stop();
        if (poller) clearInterval(poller);
        if (sat.non2xx > 0 || sat.errors > 0) throw new Error(`${v}: ${sat.non2xx} non-2xx, ${sat.errors} errors`);
        const perRequest = (cpu.sutCpuS * 1e6) / sat.ok;
        cpuUs[v].push(perRequest);
        rps[v].push(sat.rps);
        log(`run ${run + 1}/${runs} status ${v.padEnd(3)}: ${Math.round(sat.rps)}/s, ${Math.round(perRequest)} CPU µs/request`);
      }
    }
    if (polls === 0) throw new Error('the status page was never read');
    const ratio = median(cpuUs.on.map((x, i) => x / cpuUs.off[i]!));
    process.stdout.write(
      `\nstatus page overhead (messages→messages, non-streamed, ${connections} connections; median of ${runs} runs, ${durationS} s each${quick ? ', --quick' : ''}; ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(2)}; ${polls} status.json polls)\n`,
    );
    process.stdout.write('status   CPU µs/request   req/s\n');
    for (const v of VARIANTS) process.stdout.write(`${v.padEnd(8)} ${String(Math.round(median(cpuUs[v]))).padStart(14)} ${String(Math.round(median(rps[v]))).padStart(7)}\n`);
    process.stdout.write(`on/off CPU per request (median of per-run ratios): ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)} %; target ≤ 2 %)\n`);
    process.stdout.write(JSON.stringify({ cpuUs, rps, ratio }) + '\n');
  } finally {
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`status-bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
