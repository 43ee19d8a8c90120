// The benchmark suite: DIRECT (straight at the fake upstream), FLOOR (the thinnest Node forwarder),
// JSON-FLOOR (FLOOR that parses and re-serialises every body once) and the gateway as users run it,
// measured interleaved and repeated, each system under test pinned alone on CPU 0 while
// the load generator, the fake upstreams and idle proxies share CPU 1.
//
//   npm run bench                      # builds, then the full suite (~15 min)
//   npm run bench -- --quick           # ~1 s per measurement (~3 min)
//   npm run bench -- --smoke           # tiny, one run of everything, exits 1 if anything is broken
//   node --import tsx bench/run.ts --help
//
// Prints the result table and writes bench/results/<timestamp>.json (git-ignored).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { parseFlags } from './cli-flags.js';
import { ANSWER_TEXT } from './corpus.js';
import type { FakeUpstreamStats } from './fake-upstream.js';
import { ENDPOINT, geminiPath, requestBody, requestHeaders, type Protocol } from './request-bodies.js';
import { STREAM_TERMINAL } from './upstream-replies.js';
import { collectEnvironment } from './lib/environment.js';
import { writeGatewayConfig } from './lib/gateway-config.js';
import { baselineCells, gatewayCell, gatewayModel, LANES, METRICS_LANES, UPSTREAM_MODEL, type Cell, type GatewayVariant, type Lane } from './lib/lanes.js';
import { fixedRate } from './lib/fixed-rate.js';
import { saturate, type Target } from './lib/load.js';
import { Pinner } from './lib/pinning.js';
import { CpuMeter, memoryMiB, resetPeakRss, type CpuUse } from './lib/proc-stats.js';
import { QuietGate, renice } from './lib/quiet.js';
import { AUX_BOUND_MARK, buildRows, formatTable, type MemoryProbeSample, type RawResults, type SatRun } from './lib/report.js';
import { freePort, startService, stopAll, type Service } from './lib/services.js';
import { summarize } from './lib/stats.js';
import { pacedStreams, ttfbLoop, type StreamTarget } from './lib/stream-clients.js';
import { describeOpenStreams, heldEvents, measureFloorGaps, measureOpenStreams, openStreamsRows, type OpenStreamsResult } from './lib/open-streams-memory.js';
import { measureStateBackends, stateRows, STATE_BACKENDS, type StateBackend, type StateRun } from './lib/state-scenario.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

const HELP = `usage: node --import tsx bench/run.ts [options]   (npm run bench -- [options])

  --quick               ~1 s per measurement
  --smoke               every lane once through saturation, stream, TTFB and paced clients, tiny
                        durations, no waiting for quiet; exit 1 if a system fails its checks
  --duration S          seconds per saturation measurement (default 4)
  --rate-duration S     seconds per fixed-rate measurement (default 3, or --duration when given)
  --ttfb-duration S     seconds of sequential streams per TTFB measurement (default 1.5)
  --paced-hold-ms N     how long the paced streams are held after the ramp (default 3000)
  --runs N              interleaved repetitions (default 3)
  --connections N       load-generator connections at saturation (default 64)
  --rate N              fixed request rate for the latency scenario (default 100)
  --events N            SSE events per streamed answer (default 50)
  --pace-ms N           pacing of the paced streams (default 20)
  --paced-streams N     concurrent paced streams (default 1000)
  --open-streams N      streams of the open-streams row, held at once by one fresh gateway over all the
                        lanes (default 10000, capped by the open-files limit: 2 sockets each; smoke 200)
  --open-streams-pace-ms N  pacing of the open-streams row (default 1000: what this machine's load
                        generator and fake upstream sustain for 10,000 streams)
  --open-streams-hold-ms N  its hold after the ramp (default 40000; quick 10000)
  --held-streams N      the open-streams scenario's first row: N streams at --pace-ms held at once by a
                        fresh gateway (default 1000, the issue's 200 MiB count; smoke 20)
  --lanes a,b           lanes by id: ${LANES.map((l) => l.id).join(', ')}
  --scenarios a,b       sat-json, sat-stream, rate, ttfb, paced, open-streams, metrics, log-warn, store-false,
                        state (default all)
                        (metrics: a metrics-off gateway at saturation on two lanes; log-warn: a
                        gateway with log.level warn, non-streamed saturation on every lane, a second row;
                        store-false: Responses-door lanes at saturation sending store: false, a second row;
                        state: a two-turn previous_response_id conversation per state backend)
  --state-backends a,b  backends of the state scenario (default memory,file,redis; redis needs redis-server)
  --no-gateway          DIRECT, FLOOR and JSON-FLOOR only
  --no-pin              do not use taskset
  --sut-cpu N           CPU for the system under test (default 0)
  --aux-cpus LIST       CPUs for everything else, taskset syntax (default 1; e.g. 1-3 on a bigger machine)
  --pool N              undici connections per upstream origin, gateway and FLOOR (default 2048)
  --out FILE            result JSON (default bench/results/<timestamp>.json)
  --gateway-entry FILE  gateway entry point (default dist/main.js)
  --max-other-load PCT  before each measurement wait until other processes use less CPU than this
                        (% of one CPU; default 30, 0 = never wait); redo a disturbed measurement once
  --quiet-wait S        longest wait for quiet before one measurement (default 15)
  --quiet-budget S      total waiting allowed (default 120)
  --nice N              renice the bench's own processes (e.g. -10 on a shared machine; needs root)
`;

interface Options {
  mode: 'full' | 'quick' | 'smoke';
  durationS: number;
  warmupS: number;
  runs: number;
  connections: number;
  rate: number;
  rateDurationS: number;
  ttfbDurationS: number;
  ttfbMaxSamples: number;
  events: number;
  paceMs: number;
  pacedStreams: number;
  pacedRampMs: number;
  pacedHoldMs: number;
  openStreams: number;
  openStreamsPaceMs: number;
  openStreamsRampMs: number;
  openStreamsHoldMs: number;
  heldStreams: number;
  heldRampMs: number;
  heldHoldMs: number;
  lanes: Lane[];
  scenarios: Set<string>;
  stateBackends: StateBackend[];
  gateway: boolean;
  pin: boolean;
  sutCpu: number;
  auxCpus: string;
  pool: number;
  out: string | null;
  gatewayEntry: string;
  maxOtherLoad: number;
  quietWaitS: number;
  quietBudgetS: number;
  nice: number | null;
}

function parseOptions(argv: string[]): Options {
  const f = parseFlags(argv);
  if (f.has('help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const mode = f.has('smoke') ? 'smoke' : f.has('quick') ? 'quick' : 'full';
  const preset = {
    // Sized so the whole suite stays near 15 minutes on 2 CPUs.
    // The open-streams row: 10,000 streams ramped over 30 s (faster ramps overflowed the gateway's accept
    // queue on a loaded 2-CPU machine), held 40 s (quick: 10 s), one event a second each. Before it, 1,000
    // streams at the paced streams' 20 ms, ramped over 5 s (quick 3 s) and held 20 s (quick 10 s).
    full: { durationS: 4, rateDurationS: 3, warmupS: 1, runs: 3, ttfbDurationS: 1.5, ttfbMaxSamples: 2000, pacedStreams: 1000, pacedRampMs: 1000, pacedHoldMs: 3000, openStreams: 10_000, openStreamsRampMs: 30_000, openStreamsHoldMs: 40_000, openStreamsPaceMs: 1000, heldStreams: 1000, heldRampMs: 5000, heldHoldMs: 20_000 },
    quick: { durationS: 1, rateDurationS: 1, warmupS: 0.5, runs: 3, ttfbDurationS: 0.5, ttfbMaxSamples: 500, pacedStreams: 1000, pacedRampMs: 500, pacedHoldMs: 1500, openStreams: 10_000, openStreamsRampMs: 30_000, openStreamsHoldMs: 10_000, openStreamsPaceMs: 1000, heldStreams: 1000, heldRampMs: 3000, heldHoldMs: 10_000 },
    smoke: { durationS: 0.3, rateDurationS: 0.3, warmupS: 0, runs: 1, ttfbDurationS: 0.2, ttfbMaxSamples: 20, pacedStreams: 20, pacedRampMs: 100, pacedHoldMs: 300, openStreams: 200, openStreamsRampMs: 500, openStreamsHoldMs: 1000, openStreamsPaceMs: 200, heldStreams: 20, heldRampMs: 100, heldHoldMs: 500 },
  }[mode];
  const num = (name: string, fallback: number) => (f.has(name) ? Number(f.get(name)) : fallback);
  const durationS = num('duration', preset.durationS);
  const laneIds = f.get('lanes')?.split(',').map((s) => s.trim());
  const lanes = laneIds ? LANES.filter((l) => laneIds.includes(l.id)) : LANES;
  if (laneIds && lanes.length !== laneIds.length) {
    throw new Error(`unknown lane in --lanes ${f.get('lanes')}; known: ${LANES.map((l) => l.id).join(', ')}`);
  }
  const all = ['sat-json', 'sat-stream', 'rate', 'ttfb', 'paced', 'open-streams', 'metrics', 'log-warn', 'store-false', 'state'];
  // Smoke: every lane through each kind of client once, as fast as possible.
  const defaults = mode === 'smoke' ? ['sat-json', 'sat-stream', 'ttfb', 'paced', 'open-streams', 'store-false', 'state'] : all;
  const scenarios = new Set(f.get('scenarios')?.split(',').map((s) => s.trim()) ?? defaults);
  for (const s of scenarios) if (!all.includes(s)) throw new Error(`unknown scenario ${s}; known: ${all.join(', ')}`);
  const stateBackends = (f.get('state-backends')?.split(',').map((s) => s.trim()) ?? [...STATE_BACKENDS]) as StateBackend[];
  for (const b of stateBackends) if (!STATE_BACKENDS.includes(b)) throw new Error(`unknown state backend ${b}; known: ${STATE_BACKENDS.join(', ')}`);
  return {
    mode,
    durationS,
    warmupS: Math.min(preset.warmupS, durationS),
    runs: num('runs', preset.runs),
    connections: num('connections', 64),
    rate: num('rate', 100),
    rateDurationS: num('rate-duration', f.has('duration') ? durationS : preset.rateDurationS),
    ttfbDurationS: num('ttfb-duration', preset.ttfbDurationS),
    ttfbMaxSamples: preset.ttfbMaxSamples,
    events: num('events', 50),
    paceMs: num('pace-ms', 20),
    pacedStreams: num('paced-streams', preset.pacedStreams),
    pacedRampMs: preset.pacedRampMs,
    pacedHoldMs: num('paced-hold-ms', preset.pacedHoldMs),
    openStreams: num('open-streams', preset.openStreams),
    openStreamsPaceMs: num('open-streams-pace-ms', preset.openStreamsPaceMs),
    openStreamsRampMs: preset.openStreamsRampMs,
    openStreamsHoldMs: num('open-streams-hold-ms', preset.openStreamsHoldMs),
    heldStreams: num('held-streams', preset.heldStreams),
    heldRampMs: preset.heldRampMs,
    heldHoldMs: preset.heldHoldMs,
    lanes,
    scenarios,
    stateBackends,
    gateway: !f.has('no-gateway'),
    pin: !f.has('no-pin'),
    sutCpu: num('sut-cpu', 0),
    auxCpus: f.get('aux-cpus') ?? '1',
    pool: num('pool', 2048),
    out: f.get('out') ?? null,
    gatewayEntry: path.resolve(REPO, f.get('gateway-entry') ?? 'dist/main.js'),
    maxOtherLoad: num('max-other-load', mode === 'smoke' ? 0 : 30),
    quietWaitS: num('quiet-wait', mode === 'smoke' ? 2 : 15),
    quietBudgetS: num('quiet-budget', mode === 'smoke' ? 5 : 120),
    nice: f.has('nice') ? Number(f.get('nice')) : null,
  };
}

const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Systems {
  upstream: Service;
  pacedUpstream: Service;
  floor: Service;
  pacedFloor: Service;
  jsonFloor: Service;
  pacedJsonFloor: Service;
  gateway?: Service;
  gatewayWarn?: Service;
  gatewayNoMetrics?: Service;
}

/** How each gateway variant is configured; `gateway` is the default config users run. */
const GATEWAY_VARIANTS: { variant: GatewayVariant; scenario: string | null; metrics: boolean; logLevel?: string }[] = [
  { variant: 'gateway', scenario: null, metrics: true },
  { variant: 'gateway-warn', scenario: 'log-warn', metrics: true, logLevel: 'warn' },
  { variant: 'gateway-nometrics', scenario: 'metrics', metrics: false },
];

/** SIGUSR2 to the gateway's memory probe (lib/memory-probe.mjs): it appends its peak sample since the
 * last signal to `file`, read back here (bounded wait). */
async function probeMemory(service: Service, file: string): Promise<MemoryProbeSample | null> {
  const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  const before = lines().length;
  service.child.kill('SIGUSR2');
  for (let i = 0; i < 40; i++) {
    await sleep(25);
    const now = lines();
    if (now.length > before) return (JSON.parse(now[now.length - 1]!) as { peak: MemoryProbeSample }).peak;
  }
  return null;
}

interface Endpoint {
  service: Service;
  origin: string;
  path: string;
  model: string;
}

function endpointOf(systems: Systems, cell: Cell, paced: boolean): Endpoint {
  switch (cell.system) {
    case 'direct': {
      const service = paced ? systems.pacedUpstream : systems.upstream;
      return { service, origin: service.origin, path: ENDPOINT[cell.upstream], model: UPSTREAM_MODEL[cell.upstream] };
    }
    case 'floor': {
      const service = paced ? systems.pacedFloor : systems.floor;
      return { service, origin: service.origin, path: ENDPOINT[cell.upstream], model: UPSTREAM_MODEL[cell.upstream] };
    }
    case 'json-floor': {
      // The gateway's alias: JSON-FLOOR maps it to the upstream model, as the gateway does.
      const service = paced ? systems.pacedJsonFloor : systems.jsonFloor;
      return { service, origin: service.origin, path: ENDPOINT[cell.upstream], model: gatewayModel(cell.upstream, paced) };
    }
    case 'gateway':
    case 'gateway-nostore':
    case 'gateway-warn':
    case 'gateway-nometrics': {
      // `gateway-nostore` is the default gateway itself; only its requests differ (bodyOf).
      const service = cell.system === 'gateway' || cell.system === 'gateway-nostore' ? systems.gateway! : cell.system === 'gateway-warn' ? systems.gatewayWarn! : systems.gatewayNoMetrics!;
      return { service, origin: service.origin, path: ENDPOINT[cell.door], model: gatewayModel(cell.upstream, paced) };
    }
  }
}

/** The request path: fixed per protocol, except a Gemini request's (DIRECT and the floors of the Gemini
 * upstream), which names the model and the mode. */
function pathOf(e: Endpoint, cell: Cell, stream: boolean): string {
  return cell.door === 'gemini' ? geminiPath(e.model, stream) : e.path;
}

/** The cell's request body: `store` unset (what the OpenAI SDKs send) but on the `store: false` rows. */
function bodyOf(cell: Cell, model: string, stream: boolean): string {
  return requestBody(cell.door, model, stream, cell.system === 'gateway-nostore' ? { store: false } : {});
}

function loadTarget(e: Endpoint, cell: Cell, stream: boolean): Target {
  return { url: e.origin + pathOf(e, cell, stream), headers: requestHeaders(cell.door), body: bodyOf(cell, e.model, stream) };
}

function streamTarget(e: Endpoint, cell: Cell): StreamTarget {
  return {
    origin: e.origin,
    path: pathOf(e, cell, true),
    headers: requestHeaders(cell.door),
    body: bodyOf(cell, e.model, true),
    terminal: STREAM_TERMINAL[cell.door],
  };
}

/** The answer text inside a non-streamed body of that protocol, or null when the shape is wrong. */
function answerText(protocol: Protocol, json: unknown): string | null {
  const j = json as Record<string, any>;
  switch (protocol) {
    case 'messages':
      return j?.type === 'message' && Array.isArray(j.content) ? j.content.filter((b: any) => b?.type === 'text').map((b: any) => b.text).join('') : null;
    case 'responses':
      return j?.object === 'response' && j.status === 'completed' && Array.isArray(j.output)
        ? j.output.filter((i: any) => i?.type === 'message').flatMap((i: any) => i.content ?? []).filter((p: any) => p?.type === 'output_text').map((p: any) => p.text).join('')
        : null;
    case 'chat':
      return typeof j?.choices?.[0]?.message?.content === 'string' ? j.choices[0].message.content : null;
    case 'gemini':
      return Array.isArray(j?.candidates?.[0]?.content?.parts) ? j.candidates[0].content.parts.map((p: any) => p?.text ?? '').join('') : null;
  }
}

/** One request through the cell; null when the answer is complete and correct, else the reason. */
async function preflight(systems: Systems, cell: Cell, stream: boolean, paced: boolean): Promise<string | null> {
  const e = endpointOf(systems, cell, paced);
  try {
    const res = await request(e.origin + pathOf(e, cell, stream), {
      method: 'POST',
      headers: requestHeaders(cell.door),
      body: bodyOf(cell, e.model, stream),
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) return `HTTP ${res.statusCode} ${text.slice(0, 300)}`;
    if (stream) {
      if (!text.includes(STREAM_TERMINAL[cell.door])) return `stream ended without \`${STREAM_TERMINAL[cell.door]}\`: …${text.slice(-200)}`;
      return null;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return `not JSON: ${text.slice(0, 200)}`;
    }
    const answer = answerText(cell.door, json);
    if (answer !== ANSWER_TEXT) return `wrong ${cell.door} body: ${text.slice(0, 300)}`;
    return null;
  } catch (err) {
    return `request failed: ${(err as Error).message}`;
  }
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  const startedAt = new Date();
  const loadAtStart = os.loadavg();
  const env = collectEnvironment(REPO);
  const pinner = new Pinner(opts.pin, opts.sutCpu, opts.auxCpus);
  log(`mode ${opts.mode}; node ${env.node}; ${env.cpus} CPUs (${env.cpuModel}); pinning: ${pinner.info.enabled ? `SUT on CPU ${pinner.info.sutCpu}, rest on CPU ${pinner.info.auxCpu}` : pinner.info.reason}`);
  pinner.arrange(null, []);

  const onSignal = () => {
    log('interrupted; stopping child processes');
    void stopAll().then(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'));
  const tsx = (script: string, flags: string[]) => ['--import', 'tsx', path.join(REPO, 'bench', script), ...flags];
  const raw: RawResults & { state?: StateRun[]; openStreams?: OpenStreamsResult[] } = { satJson: {}, satStream: {}, rate: {}, ratePooled: {}, ttfb: {}, ttfbPooled: {}, paced: {}, memory: {}, memoryTimeline: [], memoryPeaks: {}, broken: {} };
  const notes: string[] = [];
  let exitCode = 0;

  try {
    // ---- processes
    const upstream = await startService({ name: 'upstream', cwd: REPO, args: tsx('fake-upstream.ts', ['--port', '0', '--events', String(opts.events), '--pace-ms', '0']) });
    const pacedUpstream = await startService({ name: 'paced-upstream', cwd: REPO, args: tsx('fake-upstream.ts', ['--port', '0', '--events', String(opts.events), '--pace-ms', String(opts.paceMs)]) });
    const floor = await startService({ name: 'floor', cwd: REPO, args: tsx('floor-proxy.ts', ['--port', '0', '--upstream', upstream.origin, '--connections', String(opts.pool)]) });
    const pacedFloor = await startService({ name: 'paced-floor', cwd: REPO, args: tsx('floor-proxy.ts', ['--port', '0', '--upstream', pacedUpstream.origin, '--connections', String(opts.pool)]) });
    const aliases = JSON.stringify(
      Object.fromEntries((['messages', 'responses', 'chat', 'gemini'] as const).flatMap((p) => [false, true].map((paced) => [gatewayModel(p, paced), UPSTREAM_MODEL[p]]))),
    );
    const jsonFloor = await startService({ name: 'json-floor', cwd: REPO, args: tsx('json-floor-proxy.ts', ['--port', '0', '--upstream', upstream.origin, '--connections', String(opts.pool), '--models', aliases]) });
    const pacedJsonFloor = await startService({ name: 'paced-json-floor', cwd: REPO, args: tsx('json-floor-proxy.ts', ['--port', '0', '--upstream', pacedUpstream.origin, '--connections', String(opts.pool), '--models', aliases]) });
    const systems: Systems = { upstream, pacedUpstream, floor, pacedFloor, jsonFloor, pacedJsonFloor };
    const memoryProbe = path.join(REPO, 'bench', 'lib', 'memory-probe.mjs');
    const probeFile = (name: string) => path.join(tmp, `${name}-memory.jsonl`);
    const logFile = (name: string) => path.join(tmp, `${name}.log`);

    const main = opts.gatewayEntry;
    if (opts.gateway && !existsSync(main)) {
      notes.push(`${path.relative(REPO, main)} not found (run \`npm run build\`): gateway not measured`);
      log(notes[notes.length - 1]!);
    } else if (opts.gateway) {
      for (const { variant: name, scenario, metrics, logLevel } of GATEWAY_VARIANTS) {
        if (scenario !== null && !opts.scenarios.has(scenario)) continue;
        const port = await freePort();
        const file = path.join(tmp, `${name}.yaml`);
        writeGatewayConfig(file, { port, metrics, upstream: upstream.origin, pacedUpstream: pacedUpstream.origin, connections: opts.pool, logLevel });
        try {
          const env2: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', SWITCHYARD_BENCH_MEMORY_PROBE: probeFile(name) };
          delete env2.SWITCHYARD_CONFIG;
          // Log lines go to a file, as with `npm start >> file`: what a user's deployment pays for them.
          const svc = await startService({
            name,
            cwd: REPO,
            args: ['--import', memoryProbe, main, '--config', file],
            port,
            stdoutFile: logFile(name),
            healthPath: '/healthz',
            env: env2,
            timeoutMs: 20_000,
          });
          if (name === 'gateway') systems.gateway = svc;
          else if (name === 'gateway-warn') systems.gatewayWarn = svc;
          else systems.gatewayNoMetrics = svc;
        } catch (err) {
          notes.push(`${name} did not start: ${(err as Error).message.slice(0, 600)}`);
          log(notes[notes.length - 1]!);
        }
      }
    }
    const gatewayMeasured = systems.gateway !== undefined;
    const services = Object.values(systems).filter((s): s is Service => s !== undefined);
    const allPids = services.map((s) => s.pid);

    // ---- cells
    const upstreams = new Set(opts.lanes.map((l) => l.upstream));
    const baselines = baselineCells(upstreams);
    const cellsByLane = new Map<string, { direct: Cell; floor: Cell; jsonFloor: Cell; gateway: Cell; warn?: Cell; nometrics?: Cell; nostore?: Cell }>();
    for (const lane of opts.lanes) {
      cellsByLane.set(lane.id, {
        direct: baselines.find((c) => c.key === `direct:${lane.upstream}`)!,
        floor: baselines.find((c) => c.key === `floor:${lane.upstream}`)!,
        jsonFloor: baselines.find((c) => c.key === `json-floor:${lane.upstream}`)!,
        gateway: gatewayCell(lane),
        ...(gatewayMeasured && lane.door === 'responses' && opts.scenarios.has('store-false') ? { nostore: gatewayCell(lane, 'gateway-nostore') } : {}),
        ...(systems.gatewayWarn ? { warn: gatewayCell(lane, 'gateway-warn') } : {}),
        ...(systems.gatewayNoMetrics && METRICS_LANES.includes(lane.id) ? { nometrics: gatewayCell(lane, 'gateway-nometrics') } : {}),
      });
    }
    // Interleaved order: per upstream protocol, DIRECT, FLOOR, then the gateway lanes into it.
    const ordered: Cell[] = [];
    for (const p of upstreams) {
      ordered.push(...baselines.filter((c) => c.upstream === p));
      for (const lane of opts.lanes.filter((l) => l.upstream === p)) {
        const c = cellsByLane.get(lane.id)!;
        if (gatewayMeasured) ordered.push(c.gateway);
        if (c.nostore) ordered.push(c.nostore);
        if (c.warn) ordered.push(c.warn);
        if (c.nometrics) ordered.push(c.nometrics);
      }
    }
    // The variants are measured at saturation only.
    const mainCells = ordered.filter((c) => c.system !== 'gateway-nometrics' && c.system !== 'gateway-warn' && c.system !== 'gateway-nostore');

    // ---- pre-flight: every cell answers correctly, streamed and not
    log(`pre-flight: ${ordered.length} systems × (non-streamed, streamed${opts.scenarios.has('paced') ? ', paced' : ''})`);
    await Promise.all(
      ordered.flatMap((cell) =>
        [
          [false, false],
          [true, false],
          ...(opts.scenarios.has('paced') ? [[true, true]] : []),
        ].map(async ([stream, paced]) => {
          const why = await preflight(systems, cell, stream!, paced!);
          if (why && !raw.broken[cell.key]) raw.broken[cell.key] = `${stream ? (paced ? 'paced stream' : 'stream') : 'non-streamed'}: ${why}`;
        }),
      ),
    );
    for (const [key, why] of Object.entries(raw.broken)) log(`BROKEN ${key}: ${why}`);
    if (Object.keys(raw.broken).length > 0) exitCode = 1;
    const usable = (cells: Cell[]) => cells.filter((c) => !raw.broken[c.key]);

    // ---- estimate
    const nSat = usable(ordered).length;
    const nMain = usable(mainCells).length;
    const est =
      (opts.scenarios.has('sat-json') ? nSat * (opts.runs * opts.durationS + opts.warmupS) : 0) +
      (opts.scenarios.has('sat-stream') ? (nSat - (gatewayMeasured && systems.gatewayWarn ? opts.lanes.length : 0)) * (opts.runs * opts.durationS + opts.warmupS) : 0) +
      (opts.scenarios.has('rate') ? nMain * opts.runs * opts.rateDurationS : 0) +
      (opts.scenarios.has('ttfb') ? nMain * opts.runs * opts.ttfbDurationS : 0) +
      (opts.scenarios.has('paced') ? nMain * ((opts.pacedRampMs + opts.pacedHoldMs) / 1000 + 1.5) : 0) +
      (opts.scenarios.has('open-streams') && gatewayMeasured ? (2 * (opts.openStreamsRampMs + opts.openStreamsHoldMs + opts.heldRampMs + opts.heldHoldMs)) / 1000 + 40 : 0);
    log(`measuring ${nMain} systems (+${nSat - nMain} gateway variants at saturation) × ${opts.runs} runs, about ${Math.ceil(est / 60)} min`);

    if (opts.nice !== null) {
      const ok = [process.pid, ...allPids].every((pid) => renice(pid, opts.nice!));
      notes.push(ok ? `bench processes reniced to ${opts.nice}` : `renice to ${opts.nice} failed (privileges?)`);
    }
    const others = (sut: number) => [...allPids.filter((p) => p !== sut), process.pid];
    const arrange = (sut: number) => pinner.arrange(sut, allPids);
    const gate = new QuietGate(opts.maxOtherLoad, opts.quietWaitS, opts.quietBudgetS, () => [...allPids, process.pid]);
    /** Pins the cell's system alone on the SUT CPU, waits for a quiet machine, measures with CPU accounting. */
    const measure = <T>(cell: Cell, paced: boolean, fn: (e: Endpoint) => Promise<T>) =>
      gate.measure(async () => {
        const e = endpointOf(systems, cell, paced);
        arrange(e.service.pid);
        const meter = new CpuMeter(e.service.pid, others(e.service.pid));
        const result = await fn(e);
        return { result, ...meter.stop() };
      });
    const cpuOf = (m: CpuUse & { attempts: number }) => ({
      sutCpuS: m.sutCpuS,
      sutCpuPct: m.sutCpuPct,
      auxCpuPct: m.auxCpuPct,
      foreignCpuPct: m.foreignCpuPct,
      stealCpuPct: m.stealCpuPct,
      attempts: m.attempts,
    });
    const load = (m: CpuUse & { attempts: number }) =>
      `SUT ${m.sutCpuPct.toFixed(0)}% CPU, rest ${m.auxCpuPct.toFixed(0)}%, other ${m.foreignCpuPct.toFixed(0)}%${m.attempts > 1 ? ' (redone)' : ''}`;
    const warmed = new Set<string>();
    const warm = async (cell: Cell, stream: boolean) => {
      const k = `${cell.key}|${stream}`;
      if (warmed.has(k) || opts.warmupS <= 0) return;
      warmed.add(k);
      const e = endpointOf(systems, cell, false);
      arrange(e.service.pid);
      // The metrics-off gateway serves only its few lanes: warmed as long in all as the main gateway is over
      // every lane, or its first rows measure code not yet optimised (it read 2-3x the CPU per request).
      const metricsLanes = opts.lanes.filter((l) => METRICS_LANES.includes(l.id)).length;
      const seconds = cell.system === 'gateway-nometrics' ? (opts.warmupS * opts.lanes.length) / Math.max(1, metricsLanes) : opts.warmupS;
      await saturate(loadTarget(e, cell, stream), opts.connections, seconds);
    };
    const order = (cells: Cell[], run: number) => (run % 2 === 0 ? cells : [...cells].reverse());
    /** RSS of the gateways after each phase, to show where the peak comes from. */
    const snapshot = (phase: string) => {
      const entry: Record<string, number | string> = { phase };
      for (const s of [systems.gateway, systems.gatewayWarn, systems.gatewayNoMetrics]) {
        if (!s) continue;
        const m = memoryMiB(s.pid);
        entry[`${s.name}RssMiB`] = Math.round(m.rssMiB * 10) / 10;
        entry[`${s.name}PeakMiB`] = Math.round(m.peakRssMiB * 10) / 10;
      }
      raw.memoryTimeline.push(entry);
    };
    snapshot('start');

    // ---- saturation
    for (const [scenario, stream, store] of [
      ['sat-json', false, raw.satJson],
      ['sat-stream', true, raw.satStream],
    ] as const) {
      if (!opts.scenarios.has(scenario)) continue;
      // The log-warn variant on non-streamed requests only: a stream logs one line per 50 events.
      const cells = usable(stream ? ordered.filter((c) => c.system !== 'gateway-warn') : ordered);
      log(`${scenario}: warm-up`);
      for (const cell of cells) await warm(cell, stream);
      for (let run = 0; run < opts.runs; run++) {
        for (const cell of order(cells, run)) {
          // The metrics-off gateway idles while the other lanes run (V8 shrinks an idle heap): brought back to
          // load before each of its measurements, as the main gateway, busy with every lane, always is.
          if (cell.system === 'gateway-nometrics') {
            const e = endpointOf(systems, cell, false);
            arrange(e.service.pid);
            await saturate(loadTarget(e, cell, stream), opts.connections, opts.warmupS);
          }
          const m = await measure(cell, false, (e) => saturate(loadTarget(e, cell, stream), opts.connections, opts.durationS));
          const r = m.result;
          // CPU per request: the system's CPU time over the measurement / requests completed in it.
          const entry: SatRun = { run, rps: r.rps, ok: r.ok, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, cpuUsPerRequest: r.ok > 0 ? (m.sutCpuS * 1e6) / r.ok : NaN, ...cpuOf(m) };
          (store[cell.key] ??= []).push(entry);
          log(`${scenario} run ${run + 1}/${opts.runs} ${cell.key.padEnd(36)} ${Math.round(r.rps).toString().padStart(7)}/s  ${Math.round(entry.cpuUsPerRequest).toString().padStart(6)} µs CPU each  ${load(m)}${r.non2xx || r.errors ? `  non-2xx ${r.non2xx} errors ${r.errors}` : ''}`);
          if ((r.non2xx > 0 || r.errors > 0) && !raw.broken[cell.key]) {
            raw.broken[cell.key] = `${scenario}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts under load`;
            exitCode = 1;
          }
        }
      }
    }

    snapshot('after saturation');
    // The gateway's peak so far is its peak at saturation (it idled before): VmHWM and the probe's
    // breakdown at the highest RSS it sampled.
    const gatewaySvc = systems.gateway;
    if (gatewaySvc && (opts.scenarios.has('sat-json') || opts.scenarios.has('sat-stream'))) {
      raw.memoryPeaks.saturation = { peakRssMiB: memoryMiB(gatewaySvc.pid).peakRssMiB, probe: await probeMemory(gatewaySvc, probeFile(gatewaySvc.name)) };
    }

    // ---- latency at a fixed, moderate rate (non-streamed)
    const rateSamples: Record<string, number[]> = {};
    if (opts.scenarios.has('rate')) {
      const cells = usable(mainCells);
      for (const cell of cells) await warm(cell, false);
      for (let run = 0; run < opts.runs; run++) {
        for (const cell of order(cells, run)) {
          const m = await measure(cell, false, (e) =>
            fixedRate({ ...streamTarget(e, cell), path: pathOf(e, cell, false), body: bodyOf(cell, e.model, false), terminal: '' }, opts.rate, opts.rateDurationS),
          );
          const r = m.result;
          const s = summarize(r.latenciesUs);
          (rateSamples[cell.key] ??= []).push(...r.latenciesUs);
          (raw.rate[cell.key] ??= []).push({
            run,
            samples: s.count,
            achievedRps: r.achievedRps,
            p50Us: s.p50,
            p90Us: s.p90,
            p99Us: s.p99,
            maxUs: s.max,
            failures: r.failures,
            maxLatenessMs: r.maxLatenessMs,
            ...cpuOf(m),
          });
          log(`rate ${opts.rate}/s run ${run + 1}/${opts.runs} ${cell.key.padEnd(36)} p50 ${Math.round(s.p50)} µs  p99 ${Math.round(s.p99)} µs  (${s.count} samples${r.failures ? `, ${r.failures} failures: ${r.firstFailure}` : ''})  ${load(m)}`);
          if (r.failures > 0 && !raw.broken[cell.key]) {
            raw.broken[cell.key] = `rate: ${r.failures} failures: ${r.firstFailure}`;
            exitCode = 1;
          }
        }
      }
    }

    for (const [key, samples] of Object.entries(rateSamples)) raw.ratePooled[key] = summarize(samples);

    snapshot('after fixed rate');

    // ---- streamed: time to first byte and total time, one stream at a time
    const ttfbSamples: Record<string, { ttfb: number[]; total: number[] }> = {};
    if (opts.scenarios.has('ttfb')) {
      const cells = usable(mainCells);
      for (const cell of cells) await warm(cell, true);
      for (let run = 0; run < opts.runs; run++) {
        for (const cell of order(cells, run)) {
          const m = await measure(cell, false, (e) => ttfbLoop(streamTarget(e, cell), opts.ttfbDurationS, opts.ttfbMaxSamples));
          const r = m.result;
          const pooled = (ttfbSamples[cell.key] ??= { ttfb: [], total: [] });
          pooled.ttfb.push(...r.ttfbUs);
          pooled.total.push(...r.totalUs);
          const ttfb = summarize(r.ttfbUs);
          const total = summarize(r.totalUs);
          (raw.ttfb[cell.key] ??= []).push({
            run,
            samples: ttfb.count,
            failures: r.failures,
            ...(r.firstFailure ? { firstFailure: r.firstFailure } : {}),
            headersP50Us: summarize(r.headersUs).p50,
            ttfbP50Us: ttfb.p50,
            ttfbP99Us: ttfb.p99,
            totalP50Us: total.p50,
            totalP99Us: total.p99,
            framesPerStream: r.framesPerStream,
            ...cpuOf(m),
          });
          log(`ttfb run ${run + 1}/${opts.runs} ${cell.key.padEnd(36)} TTFB p50 ${Math.round(ttfb.p50)} µs  total p50 ${Math.round(total.p50)} µs  ${r.framesPerStream} frames${r.failures ? `  ${r.failures} failures: ${r.firstFailure}` : ''}  ${load(m)}`);
          if (r.failures > 0 && !raw.broken[cell.key]) {
            raw.broken[cell.key] = `ttfb: ${r.failures} failures: ${r.firstFailure}`;
            exitCode = 1;
          }
        }
      }
    }

    for (const [key, p] of Object.entries(ttfbSamples)) raw.ttfbPooled[key] = { ttfb: summarize(p.ttfb), total: summarize(p.total) };

    snapshot('after ttfb');

    // ---- many concurrent paced streams
    if (opts.scenarios.has('paced')) {
      // A fresh peak for the paced phase: VmHWM restarted, the probe's earlier samples dropped.
      let peakReset = false;
      if (gatewaySvc) {
        peakReset = resetPeakRss(gatewaySvc.pid);
        await probeMemory(gatewaySvc, probeFile(gatewaySvc.name));
        if (!peakReset) notes.push('could not restart VmHWM (/proc/PID/clear_refs) before the paced streams: their peak RSS is the whole run\'s');
      }
      for (const cell of usable(mainCells)) {
        const m = await measure(cell, true, async (e) => {
          await request(pacedUpstream.origin + '/_stats?reset=1').then((r) => r.body.dump());
          return pacedStreams(streamTarget(e, cell), {
            concurrency: opts.pacedStreams,
            rampMs: opts.pacedRampMs,
            holdMs: opts.pacedHoldMs,
            paceMs: opts.paceMs,
            drainMs: 5000 + opts.events * opts.paceMs * 2,
          });
        });
        const r = m.result;
        let upstream: FakeUpstreamStats | null = null;
        try {
          upstream = (await (await request(pacedUpstream.origin + '/_stats')).body.json()) as FakeUpstreamStats;
        } catch {
          // informative only
        }
        raw.paced[cell.key] = {
          ...r,
          ...cpuOf(m),
          concurrency: opts.pacedStreams,
          upstreamMaxActive: upstream?.maxActiveStreams ?? null,
          upstreamLateMaxMs: upstream?.pacingLateMax ?? null,
        };
        log(
          `paced ${cell.key.padEnd(36)} held ≥${r.minHeld} (upstream saw ${upstream?.maxActiveStreams}), ${r.completed} done, ${r.failures} failed, ` +
            `gap beyond pacing p99 ${r.excessGap.p99.toFixed(1)} ms max ${r.excessGap.max.toFixed(1)} ms, >100 ms: ${r.excessGap.over100ms}; ` +
            `upstream late max ${upstream?.pacingLateMax.toFixed(1)} ms (its loop delay p99 ${upstream?.loopDelayP99Ms.toFixed(1)} max ${upstream?.loopDelayMaxMs.toFixed(1)}), client loop delay p99 ${r.clientLoopDelayMs.p99.toFixed(1)} max ${r.clientLoopDelayMs.max.toFixed(1)} ms; ${load(m)}`,
        );
        await sleep(300);
      }
      if (gatewaySvc) {
        raw.memoryPeaks.paced = { peakRssMiB: memoryMiB(gatewaySvc.pid).peakRssMiB, probe: await probeMemory(gatewaySvc, probeFile(gatewaySvc.name)), wholeRun: !peakReset };
      }
    }

    snapshot('after paced streams');

    // ---- many open streams: one fresh gateway holds them all at once, over every lane; then FLOOR the same
    // streams (its gaps are the apparatus's and one bare Node hop's). First the issue's 1,000 at 20 ms, then
    // 10,000 at the pacing this machine's apparatus sustains. Every stream outlasts the hold (the issue's
    // streams are two minutes long): the client cuts them at its end.
    const openStreams: OpenStreamsResult[] = [];
    if (opts.scenarios.has('open-streams') && gatewayMeasured) {
      // Not pinned: the row measures memory, and 10,000 streams' events are more than the aux CPU alone
      // carries for the load generator and the fake upstream on a shared machine (streams then time out).
      // Its gateway and fake upstream inherit this process's affinity: every CPU.
      pinner.unpin([]);
      const runs = [
        { key: 'held-streams', streams: opts.heldStreams, paceMs: opts.paceMs, rampMs: opts.heldRampMs, holdMs: opts.heldHoldMs },
        { key: 'open-streams', streams: opts.openStreams, paceMs: opts.openStreamsPaceMs, rampMs: opts.openStreamsRampMs, holdMs: opts.openStreamsHoldMs },
      ];
      for (const run of runs) {
        const shape = { repo: REPO, streams: run.streams, paceMs: run.paceMs, events: heldEvents(run), rampMs: run.rampMs, holdMs: run.holdMs, lanes: opts.lanes, log };
        try {
          const r = await measureOpenStreams({ ...shape, tmp, entry: main });
          log(`open streams: ${describeOpenStreams(r)}`);
          r.floor = await measureFloorGaps(shape);
          openStreams.push(r);
          if (r.fdCapped) notes.push(`open streams: ${r.streams} instead of ${r.requested}: this process's open-files limit is ${r.fdLimit} and each stream takes two sockets in the gateway`);
          if (r.failures > r.streams / 100) {
            raw.broken[run.key] = `${r.failures} of ${r.streams} streams failed: ${r.firstFailure}`;
            exitCode = 1;
          }
        } catch (err) {
          raw.broken[run.key] = `open streams: ${(err as Error).message.slice(0, 400)}`;
          exitCode = 1;
        }
      }
      raw.openStreams = openStreams;
    }

    // ---- a two-turn previous_response_id conversation per state backend (a gateway process each)
    const stateRuns: StateRun[] = [];
    if (opts.scenarios.has('state') && gatewayMeasured) {
      stateRuns.push(
        ...(await measureStateBackends({
          backends: opts.stateBackends,
          main,
          repo: REPO,
          tmp,
          upstream: upstream.origin,
          pacedUpstream: pacedUpstream.origin,
          connections: opts.pool,
          durationS: opts.mode === 'smoke' ? 0.3 : opts.rateDurationS,
          runs: opts.runs,
          gate,
          arrange: (sut, extra) => pinner.arrange(sut, [...allPids, ...extra]),
          ourPids: [...allPids, process.pid],
          log,
          notes,
        })),
      );
      raw.state = stateRuns;
      const failed = stateRuns.find((r) => r.failures > 0);
      if (failed) {
        raw.broken[`state:${failed.backend}`] = `state: ${failed.failures} failures: ${failed.firstFailure}`;
        exitCode = 1;
      }
    }

    // ---- memory
    for (const s of services) raw.memory[s.name] = memoryMiB(s.pid);
    for (const s of [systems.gateway, systems.gatewayWarn, systems.gatewayNoMetrics]) {
      if (s && existsSync(logFile(s.name))) raw.logBytes = { ...raw.logBytes, [s.name]: statSync(logFile(s.name)).size };
    }
    if (gate.waitedS > 0.5) notes.push(`waited ${gate.waitedS.toFixed(0)} s in total for other processes to quieten (threshold ${opts.maxOtherLoad}% of a CPU)`);
    const foreign = [...Object.values(raw.satJson), ...Object.values(raw.satStream), ...Object.values(raw.rate), ...Object.values(raw.ttfb)].flat().map((r) => r.foreignCpuPct);
    if (foreign.length) {
      const sortedForeign = [...foreign].sort((a, b) => a - b);
      const noisy = foreign.filter((v) => v > Math.max(opts.maxOtherLoad, 30)).length;
      notes.push(
        `other processes' CPU during measurements: median ${sortedForeign[sortedForeign.length >> 1]!.toFixed(0)}%, max ${sortedForeign[sortedForeign.length - 1]!.toFixed(0)}% of one CPU; ` +
          `${noisy} of ${foreign.length} measurements above ${Math.max(opts.maxOtherLoad, 30)}%${opts.maxOtherLoad <= 0 ? ' (no waiting for quiet in this mode)' : ''}`,
      );
    }
    for (const s of services) {
      if (s.exited()) {
        notes.push(`${s.name} exited during the run: ${s.stderrTail().slice(-500)}`);
        exitCode = 1;
      }
    }

    // ---- report
    const rows = buildRows({ raw, lanes: opts.lanes, cellsByLane, pacedConcurrency: opts.pacedStreams, gatewayMeasured, scenarios: opts.scenarios });
    for (const r of openStreams) rows.push(...openStreamsRows(r, opts.lanes));
    rows.push(...stateRows(raw.state ?? []));
    const finishedAt = new Date();
    process.stdout.write('\n' + formatTable(rows) + '\n');
    if (rows.some((r) => [r.direct, r.floor, r.gateway].some((v) => v.endsWith(AUX_BOUND_MARK)))) {
      notes.unshift(
        `${AUX_BOUND_MARK} the load generator and fake upstream (aux CPU ≥90%) were the limit, not that system (<90%): a lower bound; a ratio to it is an upper bound`,
      );
    }
    if (notes.length) process.stdout.write('\nNotes:\n' + notes.map((n) => `- ${n}`).join('\n') + '\n');
    for (const [key, why] of Object.entries(raw.broken)) process.stdout.write(`- broken ${key}: ${why.slice(0, 400)}\n`);

    const out = opts.out ?? path.join(REPO, 'bench', 'results', `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    const { lanes: _lanes, scenarios, ...rest } = opts;
    writeFileSync(
      out,
      JSON.stringify(
        {
          startedAt: startedAt.toISOString(),
          finishedAt: finishedAt.toISOString(),
          elapsedS: (finishedAt.getTime() - startedAt.getTime()) / 1000,
          environment: env,
          loadAverage: { start: loadAtStart, end: os.loadavg() },
          pinning: {
            ...pinner.info,
            layout: pinner.info.enabled
              ? `system under test alone on CPU ${pinner.info.sutCpu} (re-pinned per measurement with taskset -a -p); load generator (this process), fake upstreams and idle proxies/gateways on CPU ${pinner.info.auxCpu}`
              : 'not pinned',
          },
          options: { ...rest, lanes: opts.lanes.map((l) => l.id), scenarios: [...scenarios] },
          services: Object.fromEntries(services.map((s) => [s.name, { pid: s.pid, port: s.port }])),
          notes,
          rows,
          raw,
        },
        null,
        2,
      ) + '\n',
    );
    process.stdout.write(`\nresults: ${path.relative(process.cwd(), out)}  (${((finishedAt.getTime() - startedAt.getTime()) / 1000).toFixed(0)} s)\n`);
  } finally {
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
  if (opts.mode === 'smoke') process.exitCode = exitCode;
}

main().catch(async (err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  await stopAll();
  process.exit(2);
});
