// Responses over WebSocket against the same over HTTP (issue 36), on one gateway process started as users
// start it (dist/main.js, default config: log line at info, metrics on; plus the bench's memory probe):
//
//   - a 20-turn tool loop (lib/tool-loop.ts: each turn the previous call's output with
//     previous_response_id, each answer the next tool call from the fake upstream), over one WebSocket
//     per loop (its upgrade included) and over HTTP (streamed POSTs on one keep-alive connection), on a
//     pass-through lane (responses→responses) and a translation lane (responses→messages). Per
//     measurement `--loops` loops one after another; reported per turn: wall time and the gateway's CPU
//     (its threads' on-CPU time from /proc/PID/task/*/schedstat, ns resolution: one measurement is a few
//     hundred ms of CPU, tens of /proc/PID/stat's 10 ms ticks; that figure is kept beside it in the JSON)
//     over the measurement / turns, min and median over
//     `--reps` interleaved repetitions, and the median of the per-repetition socket/HTTP CPU ratios;
//   - memory per idle open socket: `--sockets` WebSockets opened (upgrade done) and left idle, the
//     gateway's heap, external memory and RSS after two full GCs (memory-probe.mjs, SIGWINCH) before and
//     after, per socket; then the same number of idle HTTP keep-alive connections (one GET /healthz
//     each) as the baseline of the same run. All of them are closed before the next phase.
//
//   npm run bench:socket [-- --quick | --smoke] [--turns 20] [--loops 10] [--reps 7] [--warmup 30] [--sockets 1000]
//
// No CPU pinning (run.ts pins): on a shared machine compare within a repetition, and read the load
// printed with the figures. The full record goes to bench/results/socket-<time>.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { stringify } from 'yaml';
import { parseFlags } from './cli-flags.js';
import { collectEnvironment } from './lib/environment.js';
import { probeAsk, type HeapAfterGc } from './lib/open-streams-memory.js';
import { CpuMeter, threadCpuSeconds } from './lib/proc-stats.js';
import { freePort, startService, stopAll, type Service } from './lib/services.js';
import { openIdleHttpConnections, openIdleSockets, runLoop, type Transport } from './lib/tool-loop.js';
import { TOOL_LOOP_SUFFIX } from './upstream-replies.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const TRANSPORTS: Transport[] = ['websocket', 'http'];

/** The lanes: the door is Responses (Codex's), the upstream a Responses or a Messages deployment. */
export const SOCKET_LANES = [
  { id: 'responses-responses', label: 'responses→responses', alias: 'm-responses', provider: 'up-responses' },
  { id: 'responses-messages', label: 'responses→messages', alias: 'm-messages', provider: 'up-messages' },
] as const;

export interface TurnMeasurement {
  lane: string;
  transport: Transport;
  rep: number;
  turns: number;
  msPerTurn: number;
  /** The gateway's CPU per turn from its threads' schedstat (ns resolution). */
  cpuUsPerTurn: number;
  /** The same from /proc/PID/stat (10 ms ticks), as the other benches read it: a cross-check. */
  ticksCpuUsPerTurn?: number;
  /** CPU of processes not ours during the measurement, % of one CPU (a noise indicator). */
  foreignCpuPct: number;
}

export interface TransportSummary {
  msPerTurn: { min: number; median: number };
  cpuUsPerTurn: { min: number; median: number };
}

export interface LaneSummary {
  lane: string;
  websocket: TransportSummary;
  http: TransportSummary;
  /** Median over repetitions of (socket CPU per turn / HTTP CPU per turn) within the repetition. */
  cpuRatio: number;
  cpuRatioRange: [number, number];
  timeRatio: number;
  /** Done-when (issue 36): a turn over the socket costs no more gateway CPU than over HTTP. */
  verdict: 'pass' | 'miss';
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function minMedian(xs: number[]): { min: number; median: number } {
  return { min: Math.min(...xs), median: median(xs) };
}

/** Per lane: each transport's min/median per turn and the within-repetition socket/HTTP ratios. */
export function summariseTurns(ms: TurnMeasurement[]): LaneSummary[] {
  const lanes = [...new Set(ms.map((m) => m.lane))];
  return lanes.map((lane) => {
    const of = (t: Transport) => ms.filter((m) => m.lane === lane && m.transport === t);
    const ws = of('websocket');
    const http = of('http');
    const pairs = ws.map((w) => [w, http.find((h) => h.rep === w.rep)] as const).filter((p): p is readonly [TurnMeasurement, TurnMeasurement] => p[1] !== undefined);
    const cpuRatios = pairs.map(([w, h]) => w.cpuUsPerTurn / h.cpuUsPerTurn);
    const cpuRatio = median(cpuRatios);
    const summary = (xs: TurnMeasurement[]): TransportSummary => ({ msPerTurn: minMedian(xs.map((x) => x.msPerTurn)), cpuUsPerTurn: minMedian(xs.map((x) => x.cpuUsPerTurn)) });
    return {
      lane,
      websocket: summary(ws),
      http: summary(http),
      cpuRatio,
      cpuRatioRange: [Math.min(...cpuRatios), Math.max(...cpuRatios)],
      timeRatio: median(pairs.map(([w, h]) => w.msPerTurn / h.msPerTurn)),
      verdict: cpuRatio <= 1 ? 'pass' : 'miss',
    };
  });
}

export interface IdleMemory {
  kind: Transport;
  connections: number;
  before: HeapAfterGc;
  after: HeapAfterGc;
  /** (after − before) / connections, bytes: heap used, external (array buffers included), RSS. */
  heapBytesPerConnection: number;
  externalBytesPerConnection: number;
  rssBytesPerConnection: number;
}

const MiB = 1024 * 1024;

export function perConnection(kind: Transport, connections: number, before: HeapAfterGc, after: HeapAfterGc): IdleMemory {
  const per = (a: number, b: number) => ((b - a) * MiB) / connections;
  return {
    kind,
    connections,
    before,
    after,
    heapBytesPerConnection: per(before.heapUsedMiB, after.heapUsedMiB),
    externalBytesPerConnection: per(before.externalMiB, after.externalMiB),
    rssBytesPerConnection: per(before.rssMiB, after.rssMiB),
  };
}

/** The printed table (markdown, as the README carries it). */
export function formatReport(lanes: LaneSummary[], memory: IdleMemory[], label: string): string {
  const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
  const f2 = (n: number) => n.toFixed(2);
  const kib = (n: number) => (n / 1024).toFixed(1);
  const lines = [
    `Responses over WebSocket vs HTTP (${label})`,
    '',
    '| lane | transport | time per turn, ms (min · median) | gateway CPU µs per turn (min · median) | socket/HTTP CPU (median, range) | socket/HTTP time | no more CPU than HTTP |',
    '|---|---|---:|---:|---:|---:|---|',
  ];
  for (const l of lanes) {
    for (const t of TRANSPORTS) {
      const s = l[t];
      const first = t === 'websocket';
      lines.push(
        `| ${first ? l.lane : ''} | ${t === 'websocket' ? 'WebSocket' : 'HTTP (SSE)'} | ${f2(s.msPerTurn.min)} · ${f2(s.msPerTurn.median)} | ${f0(s.cpuUsPerTurn.min)} · ${f0(s.cpuUsPerTurn.median)} | ${first ? `${f2(l.cpuRatio)}× (${f2(l.cpuRatioRange[0])}…${f2(l.cpuRatioRange[1])})` : ''} | ${first ? `${f2(l.timeRatio)}×` : ''} | ${first ? l.verdict : ''} |`,
      );
    }
  }
  if (memory.length > 0) {
    lines.push('', '| idle connections held | count | heap per connection, KiB | external per connection, KiB | RSS per connection, KiB |', '|---|---:|---:|---:|---:|');
    for (const m of memory) {
      lines.push(`| ${m.kind === 'websocket' ? 'WebSocket (upgraded, idle)' : 'HTTP keep-alive (one GET, idle)'} | ${f0(m.connections)} | ${kib(m.heapBytesPerConnection)} | ${kib(m.externalBytesPerConnection)} | ${kib(m.rssBytesPerConnection)} |`);
    }
  }
  return lines.join('\n') + '\n';
}

function gatewayYaml(port: number, upstream: string): string {
  return stringify({
    server: { host: '127.0.0.1', port },
    auth: { open: true },
    providers: {
      'up-responses': { protocol: 'responses', base_url: upstream + '/v1', api_key: 'sk-bench-upstream', retry: { attempts: 1 } },
      'up-messages': { protocol: 'messages', base_url: upstream, api_key: 'sk-bench-upstream', retry: { attempts: 1 } },
    },
    models: {
      'm-responses': { provider: 'up-responses', model: 'gpt-bench' + TOOL_LOOP_SUFFIX },
      'm-messages': { provider: 'up-messages', model: 'claude-bench' + TOOL_LOOP_SUFFIX },
    },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function idleMemory(kind: Transport, gateway: Service, probeFile: string, n: number): Promise<IdleMemory> {
  // Collected twice a second apart: after the loops the first collection still hands pages back, and
  // RSS read after one alone fell below what 1,000 open sockets then held.
  await probeAsk<HeapAfterGc>(gateway, probeFile, 'SIGWINCH', 'gc');
  await sleep(1000);
  const before = await probeAsk<HeapAfterGc>(gateway, probeFile, 'SIGWINCH', 'gc');
  const held = kind === 'websocket' ? await openIdleSockets(gateway.origin, n) : await openIdleHttpConnections(gateway.origin, n);
  try {
    // Let the last upgrades' promises and buffers settle before the collection.
    await sleep(1000);
    const after = await probeAsk<HeapAfterGc>(gateway, probeFile, 'SIGWINCH', 'gc');
    if (!before || !after) throw new Error('the memory probe did not answer');
    return perConnection(kind, n, before, after);
  } finally {
    await held.closeAll();
    await sleep(500);
  }
}

async function main(): Promise<void> {
  const f = parseFlags(process.argv.slice(2));
  const smoke = f.has('smoke');
  const quick = f.has('quick');
  const turns = Number(f.get('turns') ?? (smoke ? 3 : 20));
  const loops = Number(f.get('loops') ?? (smoke ? 2 : quick ? 5 : 10));
  const reps = Number(f.get('reps') ?? (smoke ? 1 : quick ? 3 : 7));
  // Loops per lane and transport before the first measurement: the first repetitions read twice the
  // CPU of the later ones after 10.
  const warmLoops = Number(f.get('warmup') ?? (smoke ? 1 : quick ? 10 : 30));
  const socketCount = Number(f.get('sockets') ?? (smoke ? 20 : 1000));
  const log = (s: string) => process.stderr.write(s + '\n');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-socket-bench-'));
  const load0 = os.loadavg();
  try {
    const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', '0'] });
    const port = await freePort();
    const config = path.join(tmp, 'gateway.yaml');
    writeFileSync(config, `# written by bench/socket-overhead.ts\n${gatewayYaml(port, upstream.origin)}`);
    const probeFile = path.join(tmp, 'memory.jsonl');
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', SWITCHYARD_BENCH_MEMORY_PROBE: probeFile };
    delete env.SWITCHYARD_CONFIG;
    const gateway = await startService({
      name: 'gateway',
      cwd: REPO,
      args: ['--import', path.join(REPO, 'bench', 'lib', 'memory-probe.mjs'), path.join(REPO, 'dist', 'main.js'), '--config', config],
      port,
      env,
      stdoutFile: path.join(tmp, 'gateway.log'),
    });
    const pool = new Pool(gateway.origin, { connections: 1, pipelining: 1 });

    const measure = async (lane: (typeof SOCKET_LANES)[number], transport: Transport, rep: number): Promise<TurnMeasurement> => {
      const meter = new CpuMeter(gateway.pid, [upstream.pid]);
      const cpu0 = threadCpuSeconds(gateway.pid);
      const t0 = performance.now();
      let done = 0;
      for (let i = 0; i < loops; i++) done += (await runLoop(transport, gateway.origin, pool, lane.alias, turns)).turns;
      const ms = performance.now() - t0;
      const cpuS = threadCpuSeconds(gateway.pid) - cpu0;
      const use = meter.stop();
      return { lane: lane.label, transport, rep, turns: done, msPerTurn: ms / done, cpuUsPerTurn: (cpuS * 1e6) / done, ticksCpuUsPerTurn: (use.sutCpuS * 1e6) / done, foreignCpuPct: use.foreignCpuPct };
    };

    for (const lane of SOCKET_LANES) for (const t of TRANSPORTS) for (let i = 0; i < warmLoops; i++) await runLoop(t, gateway.origin, pool, lane.alias, turns);
    const measurements: TurnMeasurement[] = [];
    for (let rep = 0; rep < reps; rep++) {
      for (const lane of SOCKET_LANES) {
        for (const t of rep % 2 ? [...TRANSPORTS].reverse() : TRANSPORTS) {
          const m = await measure(lane, t, rep);
          measurements.push(m);
          log(`rep ${rep + 1}/${reps} ${lane.label} ${t.padEnd(9)}: ${m.msPerTurn.toFixed(2)} ms/turn, ${Math.round(m.cpuUsPerTurn)} CPU µs/turn (${m.turns} turns; other load ${Math.round(m.foreignCpuPct)} % of a CPU)`);
        }
      }
    }
    await pool.close();

    const memory: IdleMemory[] = [];
    if (socketCount > 0) {
      for (const kind of TRANSPORTS) {
        const m = await idleMemory(kind, gateway, probeFile, socketCount);
        memory.push(m);
        log(`${socketCount} idle ${kind}: heap +${(m.heapBytesPerConnection / 1024).toFixed(1)} KiB, external +${(m.externalBytesPerConnection / 1024).toFixed(1)} KiB, RSS +${(m.rssBytesPerConnection / 1024).toFixed(1)} KiB per connection`);
      }
    }

    const lanes = summariseTurns(measurements);
    const load1 = os.loadavg();
    const foreign = median(measurements.map((m) => m.foreignCpuPct));
    const label =
      `${turns}-turn loops, ${loops} loops per measurement, ${reps} interleaved repetitions${smoke ? ', --smoke' : quick ? ', --quick' : ''}; ` +
      `${os.cpus().length} CPUs, load average ${load0[0]!.toFixed(1)} at the start, ${load1[0]!.toFixed(1)} at the end; other processes' CPU median ${Math.round(foreign)} % of a CPU`;
    process.stdout.write('\n' + formatReport(lanes, memory, label));
    const dir = path.join(REPO, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `socket-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify({ environment: collectEnvironment(REPO), options: { turns, loops, reps, warmLoops, socketCount }, loadavg: { start: load0, end: load1 }, measurements, lanes, memory }, null, 2));
    process.stdout.write(`full record: ${path.relative(REPO, file)}\n`);
  } finally {
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`socket bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  });
}
