// Added latency at a low request rate, A/B: FLOOR and one or two gateway builds (and optional control
// proxies, latency-control-proxy.ts) against one fake upstream, measured in interleaved rounds with the
// bench's open-loop client (lib/fixed-rate.ts, the `rate` scenario's). Per round and system: p50 and p90 of
// the response time, and CPU µs per request; then per system the median over rounds of (p50 − FLOOR's p50
// of the same round), which is steadier than either p50 alone on a shared machine.
//
//   node --import tsx bench/latency-ab.ts --b dist/main.js [--a OLD/main.js] --lane messages-messages \
//     [--rounds 6] [--seconds 2] [--rate 100] [--pin] [--control 'spin-us=200' --control 'hops=1'] [--store-false]
//
// --pin: like `npm run bench`, the system being measured alone on CPU 0, everything else on CPU 1.
// --node-flags-a / --node-flags-b 'FLAGS': node options for that build's process.
// --warm-sat S: each system saturated (64 connections) for S seconds before the rounds, as the bench warms a
// cell (default 1; 0 = only a 1 s burst at the rate: a gateway whose path the JIT has not optimised yet).
// --marks: FLOOR and the gateways preload latency-marks.mjs; the medians of their in-process phases are printed
// (where a request's time goes between its arrival and its reply's end() call; `cpu`: process CPU time over it;
// with --other-lanes the gateways' figures include the other lanes' requests).
// --keep: leave the temporary directory (configs, the gateways' stdout) and print its path.
// --strace DIR: instead of rounds, one burst per system under `strace -f` (files in DIR), calls per request.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { fixedRate } from './lib/fixed-rate.js';
import { saturate } from './lib/load.js';
import { writeGatewayConfig } from './lib/gateway-config.js';
import { gatewayModel, LANES } from './lib/lanes.js';
import { Pinner } from './lib/pinning.js';
import { cpuSeconds } from './lib/proc-stats.js';
import { freePort, startService, stopAll, type Service } from './lib/services.js';
import { median, summarize } from './lib/stats.js';
import { requestBody, requestHeaders, requestPath } from './request-bodies.js';
import { UPSTREAM_MODEL } from './lib/lanes.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

interface System {
  name: string;
  svc: Service;
  /** Speaks the caller's protocol (gateway) or the upstream's (FLOOR, controls). */
  gateway: boolean;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i === -1 ? undefined : argv[i + 1];
  };
  const all = (name: string): string[] => argv.flatMap((a, i) => (a === `--${name}` && argv[i + 1] !== undefined ? [argv[i + 1]!] : []));
  const lane = LANES.find((l) => l.id === (get('lane') ?? 'messages-messages'));
  if (!lane) throw new Error(`--lane: one of ${LANES.map((l) => l.id).join(', ')}`);
  const rounds = Number(get('rounds') ?? 6);
  const seconds = Number(get('seconds') ?? 2);
  const rate = Number(get('rate') ?? 100);
  const pinner = new Pinner(argv.includes('--pin'));
  const storeFalse = argv.includes('--store-false');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-latency-'));
  const marks = argv.includes('--marks');
  /** --marks: node args and env that preload latency-marks.mjs into a system, writing to its own file. */
  const marked = (name: string, env: NodeJS.ProcessEnv = process.env) =>
    marks
      ? { pre: ['--import', path.join(REPO, 'bench', 'latency-marks.mjs')], env: { ...env, LATENCY_MARKS_FILE: path.join(tmp, `marks-${name.replace(/\W+/g, '_')}.jsonl`) } }
      : { pre: [], env };
  try {
    const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', '0'] });
    const systems: System[] = [];
    const fm = marked('FLOOR');
    const floor = await startService({ name: 'floor', cwd: REPO, env: fm.env, args: [...fm.pre, '--import', 'tsx', path.join(REPO, 'bench', 'floor-proxy.ts'), '--port', '0', '--upstream', upstream.origin, '--connections', '2048'] });
    systems.push({ name: 'FLOOR', svc: floor, gateway: false });
    for (const spec of all('control')) {
      if (spec === 'chain') {
        // One more Node hop: a second FLOOR in front of FLOOR (the price of a process hop at this rate).
        const svc = await startService({ name: 'control chain', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'floor-proxy.ts'), '--port', '0', '--upstream', floor.origin, '--connections', '2048'] });
        systems.push({ name: 'control chain', svc, gateway: false });
        continue;
      }
      const args = spec.split(',').flatMap((kv) => {
        const [k, v] = kv.split('=');
        return [`--${k}`, v ?? '1'];
      });
      const svc = await startService({ name: `control ${spec}`, cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'latency-control-proxy.ts'), '--port', '0', '--upstream', upstream.origin, ...args] });
      systems.push({ name: `control ${spec}`, svc, gateway: false });
    }
    for (const k of ['a', 'b'] as const) {
      const entry = get(k) ?? (k === 'b' ? 'dist/main.js' : undefined);
      if (!entry) continue;
      const port = await freePort();
      const config = path.join(tmp, `gateway-${k}.yaml`);
      writeGatewayConfig(config, { port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 2048, logLevel: get(`log-level-${k}`) });
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
      delete env.SWITCHYARD_CONFIG;
      const gm = marked(k.toUpperCase(), env);
      const svc = await startService({ name: `gateway-${k}`, cwd: REPO, args: [...gm.pre, ...(get(`node-flags-${k}`)?.split(' ').filter(Boolean) ?? []), path.resolve(REPO, entry), '--config', config], port, stdoutFile: path.join(tmp, `gateway-${k}.log`), env: gm.env });
      systems.push({ name: k.toUpperCase(), svc, gateway: true });
    }
    const upstreamPath = requestPath(lane.upstream, UPSTREAM_MODEL[lane.upstream], false);
    const target = (s: System, l = lane) =>
      s.gateway
        ? { origin: s.svc.origin, path: requestPath(l.door, gatewayModel(l.upstream, false), false), headers: requestHeaders(l.door), body: requestBody(l.door, gatewayModel(l.upstream, false), false, storeFalse ? { store: false } : {}), terminal: '' }
        : { origin: s.svc.origin, path: upstreamPath, headers: requestHeaders(lane.upstream), body: requestBody(lane.upstream, UPSTREAM_MODEL[lane.upstream], false), terminal: '' };
    const others = [upstream.pid, ...systems.map((s) => s.svc.pid)];
    const measure = async (s: System, secs: number) => {
      pinner.arrange(s.svc.pid, others);
      const c0 = cpuSeconds(s.svc.pid);
      const r = await fixedRate(target(s), rate, secs);
      if (r.failures) throw new Error(`${s.name}: ${r.failures} failures: ${r.firstFailure}`);
      const cpuUs = ((cpuSeconds(s.svc.pid) - c0) * 1e6) / r.latenciesUs.length;
      let loopUs: number | undefined;
      if (s.name.includes('loop=')) {
        const res = await request(s.svc.origin + '/__loop');
        loopUs = ((await res.body.json()) as { p50Us: number }).p50Us;
      }
      return { ...summarize(r.latenciesUs), cpuUs, lateMs: r.maxLatenessMs, loopUs };
    };
    // Warm-up as `npm run bench` does it (each cell saturated first: the JIT has optimised the path), then
    // one short burst at the rate.
    const warmSat = Number(get('warm-sat') ?? 1);
    // --other-lanes: the gateways also serve every other lane (warmed the same way, and 1 s of another lane
    // at the rate before each of their measurements), as in `npm run bench`, where the rate phase runs
    // the eight lanes one after another on one gateway process.
    const otherLanes = argv.includes('--other-lanes') ? LANES.filter((l) => l !== lane) : [];
    for (const s of systems) {
      if (warmSat > 0) {
        pinner.arrange(s.svc.pid, others);
        for (const l of s.gateway ? [...otherLanes, lane] : [lane]) {
          const t = target(s, l);
          await saturate({ url: t.origin + t.path, headers: t.headers, body: t.body }, 64, warmSat);
        }
      }
      await measure(s, 1);
    }
    // The marks of the warm-up are left out: start the files afresh (each process appends every second).
    await new Promise((r) => setTimeout(r, 1100));
    if (marks) for (const f of readdirSync(tmp)) if (f.startsWith('marks-')) writeFileSync(path.join(tmp, f), '');
    let nextOther = 0;
    const before = async (s: System) => {
      if (!s.gateway || otherLanes.length === 0) return;
      pinner.arrange(s.svc.pid, others);
      await fixedRate(target(s, otherLanes[nextOther++ % otherLanes.length]), rate, 1);
    };
    const straceDir = get('strace');
    if (straceDir !== undefined) {
      // One burst per system with `strace -f -tt -T` attached (timing under strace is not the figure: the
      // calls per request and their order are). Files: <dir>/<system>.strace.
      for (const s of systems) {
        const out = path.join(path.resolve(straceDir), `${s.name.replace(/\W+/g, '_')}.strace`);
        const tracer = spawn('strace', ['-f', '--seccomp-bpf', '-e', `trace=${get('strace-calls') ?? 'read,writev,write,epoll_pwait,epoll_wait,futex,setsockopt,socket,connect,accept4'}`, '-tt', '-T', '-o', out, '-p', String(s.svc.pid)], { stdio: 'ignore' });
        await new Promise((r) => setTimeout(r, 700));
        const m = await measure(s, seconds);
        const exited = new Promise((resolve) => tracer.once('exit', resolve));
        tracer.kill('SIGINT');
        await exited;
        const calls = new Map<string, number>();
        for (const line of readFileSync(out, 'utf8').split('\n')) {
          const name = /^\d+\s+[\d:.]+\s+(?:<\.\.\. )?(\w+)/.exec(line)?.[1];
          if (name && !line.includes('resumed>')) calls.set(name, (calls.get(name) ?? 0) + 1);
        }
        const n = m.count;
        const per = [...calls].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${(v / n).toFixed(2)}`);
        process.stdout.write(`${s.name}: ${n} requests traced; per request: ${per.join(', ')}\n`);
      }
      return;
    }
    const added: Record<string, number[]> = {};
    const p50s: Record<string, number[]> = {};
    const cpus: Record<string, number[]> = {};
    const loops: Record<string, number[]> = {};
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 ? [...systems].reverse() : systems;
      const got: Record<string, { p50: number; p90: number; cpuUs: number; loopUs?: number }> = {};
      for (const s of order) {
        await before(s);
        got[s.name] = await measure(s, seconds);
      }
      const line = systems.map((s) => {
        const g = got[s.name]!;
        (p50s[s.name] ??= []).push(g.p50);
        (cpus[s.name] ??= []).push(g.cpuUs);
        if (s.name !== 'FLOOR') (added[s.name] ??= []).push(g.p50 - got.FLOOR!.p50);
        if (g.loopUs !== undefined) (loops[s.name] ??= []).push(g.loopUs);
        return `${s.name} p50 ${g.p50.toFixed(0)} p90 ${g.p90.toFixed(0)} cpu ${g.cpuUs.toFixed(0)}${g.loopUs !== undefined ? ` loop ${g.loopUs.toFixed(0)}` : ''}`;
      });
      process.stdout.write(`round ${i + 1}: ${line.join(' | ')}\n`);
    }
    process.stdout.write(`${lane.id} at ${rate} req/s, ${rounds} rounds of ${seconds} s${pinner.info.enabled ? ', pinned' : ''}${storeFalse ? ', store: false' : ''}; load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
    for (const s of systems) {
      const a = added[s.name];
      process.stdout.write(
        `  ${s.name.padEnd(24)} p50 median ${median(p50s[s.name]!).toFixed(0)} µs, CPU ${median(cpus[s.name]!).toFixed(0)} µs/req` +
          (loops[s.name] ? `, its loop ${median(loops[s.name]!).toFixed(0)} µs` : '') +
          (a ? `, added over FLOOR median ${median(a).toFixed(0)} µs (rounds ${a.map((x) => x.toFixed(0)).join(' ')})` : '') +
          '\n',
      );
    }
    if (marks) {
      await new Promise((r) => setTimeout(r, 1100));
      process.stdout.write('in-process phases, median over the rounds\' requests (µs; latency-marks.mjs):\n');
      for (const s of systems) {
        const f = path.join(tmp, `marks-${s.name.replace(/\W+/g, '_')}.jsonl`);
        if (!existsSync(f)) continue;
        const rows = readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, number | null>);
        const keys = ['total', 'cpu', 'preHandler', 'handlerToUpstream', 'createToWrite', 'upstream', 'answerToEnd', 'endCall'];
        const parts = keys.map((k) => `${k} ${median(rows.map((r) => r[k] ?? NaN)).toFixed(0)}`);
        process.stdout.write(`  ${s.name.padEnd(24)} ${rows.length} requests: ${parts.join(', ')}\n`);
      }
    }
  } finally {
    await stopAll();
    if (argv.includes('--keep')) process.stdout.write(`kept: ${tmp} (gateway configs and stdout logs)\n`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
