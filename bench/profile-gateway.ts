// Where the gateway's CPU goes at saturation: runs the built gateway (default config) under
// `node --cpu-prof` against the fake upstream, drives one lane with autocannon for a few seconds, and
// prints the profile of the measured seconds (start-up and warm-up left out) summarised by self time: per component (fastify, its body parser, undici, pino,
// prom-client, node's HTTP/net internals, our code per directory, GC, native) and the top functions.
// The raw .cpuprofile is kept (git-ignored) for a flame graph in Chrome DevTools or speedscope.
//
//   npm run build && node --import tsx bench/profile-gateway.ts --lane messages-messages [--stream]
//     [--duration 5] [--connections 64] [--rate N] [--log-level warn] [--out bench/results/profiles]
//     [--entry bench/card-floor-proxy.ts '--node-flags=--import tsx']   (another entry taking --config)
//
// --rate N: open-loop at N requests/s (lib/fixed-rate.ts) instead of saturation, for the per-request cost
// at a moderate rate (timers and wake-ups included); the summary then also shows the idle share.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags } from './cli-flags.js';
import { requestBody, requestHeaders, requestPath } from './request-bodies.js';
import { gatewayConfig } from './lib/gateway-config.js';
import { gatewayModel, LANES } from './lib/lanes.js';
import { fixedRate } from './lib/fixed-rate.js';
import { saturate } from './lib/load.js';
import { freePort, startService, stopAll } from './lib/services.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The component a function belongs to, from its script URL (first match wins). */
const COMPONENTS: [RegExp, string][] = [
  [/\/node_modules\/fastify\/lib\/content-type-parser|\/secure-json-parse\//, 'fastify body parser'],
  [/\/node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify|fast-querystring|toad-cache|abstract-logging|process-warning|rfdc|fast-uri|ret|safe-regex2|json-schema-ref-resolver)\//, 'fastify pipeline'],
  [/\/node_modules\/undici\//, 'undici'],
  [/\/node_modules\/(pino|pino-std-serializers|sonic-boom|fast-redact|@pinojs|thread-stream|quick-format-unescaped|atomic-sleep|on-exit-leak-free|safe-stable-stringify)\//, 'pino (logging)'],
  [/\/node_modules\/(prom-client|tdigest|bintrees)\//, 'prom-client (metrics)'],
  [/\/node_modules\/@sinclair\/typebox\//, 'typebox (validation)'],
  [/\/node_modules\//, 'other dependencies'],
  [/\/dist\/http\//, 'ours: http/'],
  [/\/dist\/codecs\//, 'ours: codecs/'],
  [/\/dist\/drivers\//, 'ours: drivers/'],
  [/\/dist\/ir\//, 'ours: ir/'],
  [/\/dist\/observability\//, 'ours: observability/'],
  [/\/dist\/router\//, 'ours: router/'],
  [/\/dist\//, 'ours: other'],
  [/^node:internal\/(http|_http)|^node:_http|node:http/, 'node http'],
  [/^node:(internal\/)?(net|stream|streams|tls|dns)|node:internal\/stream/, 'node net/streams'],
  [/^node:/, 'node other'],
];

function componentOf(frame: ProfileNode['callFrame']): string {
  if (frame.functionName === '(garbage collector)') return 'GC';
  if (frame.functionName === '(idle)') return 'idle';
  if (frame.functionName === '(program)') return 'native (program)';
  if (frame.url === '') return `native: ${frame.functionName || '(anonymous)'}`;
  for (const [re, name] of COMPONENTS) if (re.test(frame.url)) return name;
  return 'other JS';
}

/**
 * Frames without a URL are node's C++ bindings (writev, writeString: the socket and file writes, i.e.
 * the syscalls) and a few builtins; grouped under one heading. V8 builtins such as JSON.parse and
 * JSON.stringify have no frame of their own: their time is the calling function's self time.
 */
function group(component: string): string {
  return component.startsWith('native: ') ? 'native bindings (socket/file writes, …)' : component;
}

/**
 * Self time per profile node over a window counted back from the profile's end: `[end − skipEndUs −
 * windowUs, end − skipEndUs]`, so start-up, module loading and the warm-up's JIT stay out.
 */
function selfTimes(profile: CpuProfile, windowUs: number, skipEndUs: number): Map<number, number> {
  const at: number[] = [];
  let t = 0;
  for (const d of profile.timeDeltas) at.push((t += d));
  const from = t - skipEndUs - windowUs;
  const to = t - skipEndUs;
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    if (at[i]! < from || at[i]! > to) continue;
    const id = profile.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  return self;
}

export function summarise(profile: CpuProfile, requests: number, windowUs: number, skipEndUs: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = selfTimes(profile, windowUs, skipEndUs);
  let total = 0;
  let idle = 0;
  const components = new Map<string, number>();
  const builtins = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    const comp = componentOf(node.callFrame);
    total += us;
    if (comp === 'idle') {
      idle += us;
      continue;
    }
    components.set(group(comp), (components.get(group(comp)) ?? 0) + us);
    if (comp.startsWith('native: ')) builtins.set(comp.slice(8), (builtins.get(comp.slice(8)) ?? 0) + us);
    const f = node.callFrame;
    const where = f.url === '' ? '' : ` ${f.url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
    const key = `${f.functionName || '(anonymous)'}${where}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  const busy = total - idle;
  // Inclusive time: a sample counts for every component on its stack (writev under pino is logging's,
  // under fastify's reply it is the answer's), so these shares overlap and do not add up to 100%.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const comp = group(componentOf(byId.get(at)!.callFrame));
      if (comp === 'idle' || comp === 'node other' || comp === 'other JS' || comp.startsWith('native')) continue;
      seen.add(comp);
    }
    for (const comp of seen) inclusive.set(comp, (inclusive.get(comp) ?? 0) + us);
  }
  const line = (name: string, us: number) =>
    `| ${name} | ${((100 * us) / busy).toFixed(1)}% | ${requests > 0 ? (us / requests).toFixed(1) : '—'} |`;
  const sorted = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s profiled, ${requests} requests → ${requests > 0 ? (busy / requests).toFixed(0) : '—'} µs of sampled CPU per request (main thread)`,
    '',
    '| component (self time) | share of busy | µs / request |',
    '|---|---|---|',
    ...sorted(components, 40).map(([k, v]) => line(k, v)),
    '',
    '| component (inclusive: on the stack) | share of busy | µs / request |',
    '|---|---|---|',
    ...sorted(inclusive, 40).map(([k, v]) => line(k, v)),
    '',
    '| native binding (self time) | share of busy | µs / request |',
    '|---|---|---|',
    ...sorted(builtins, 8).map(([k, v]) => line(k, v)),
    '',
    '| function (self time) | share of busy | µs / request |',
    '|---|---|---|',
    ...sorted(functions, 25).map(([k, v]) => line(k.replace(/\|/g, '\\|'), v)),
  ].join('\n');
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const lane = LANES.find((l) => l.id === (flags.get('lane') ?? 'messages-messages'));
  if (!lane) throw new Error(`--lane: one of ${LANES.map((l) => l.id).join(', ')}`);
  const stream = flags.has('stream');
  const durationS = Number(flags.get('duration') ?? 5);
  const connections = Number(flags.get('connections') ?? 64);
  const rate = flags.has('rate') ? Number(flags.get('rate')) : null;
  const outDir = path.resolve(REPO, flags.get('out') ?? 'bench/results/profiles');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-profile-'));
  try {
    const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', '0'] });
    const port = await freePort();
    const config = path.join(tmp, 'gateway.yaml');
    const cfg = gatewayConfig({ port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 2048, logLevel: flags.get('log-level') });
    // No drain delay: the gateway must exit (and write its profile) before the 3 s its stop waits.
    (cfg.server as Record<string, unknown>).drain_delay_ms = 0;
    writeFileSync(config, JSON.stringify(cfg));
    const profDir = path.join(tmp, 'prof');
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
    delete env.SWITCHYARD_CONFIG;
    const gateway = await startService({
      name: 'gateway',
      cwd: REPO,
      args: ['--cpu-prof', '--cpu-prof-dir', profDir, ...(flags.get('node-flags')?.split(' ').filter(Boolean) ?? []), path.resolve(REPO, flags.get('entry') ?? 'dist/main.js'), '--config', config],
      port,
      stdoutFile: path.join(tmp, 'gateway.log'),
      env,
    });
    const target = { url: gateway.origin + requestPath(lane.door, gatewayModel(lane.upstream, false), stream), headers: requestHeaders(lane.door), body: requestBody(lane.door, gatewayModel(lane.upstream, false), stream, flags.has('store-false') ? { store: false } : {}) };
    // Warm-up: start-up and first JIT, left out of the summary.
    await saturate(target, connections, 1);
    const loadStart = performance.now();
    let r: { ok: number; rps: number; non2xx: number; errors: number };
    if (rate === null) {
      r = await saturate(target, connections, durationS);
    } else {
      const f = await fixedRate({ origin: gateway.origin, path: requestPath(lane.door, gatewayModel(lane.upstream, false), stream), headers: target.headers, body: target.body, terminal: '' }, rate, durationS);
      r = { ok: f.latenciesUs.length, rps: f.achievedRps, non2xx: 0, errors: f.failures };
    }
    const loadEnd = performance.now();
    // SIGINT: the drain without its load-balancer delay (SIGTERM waits drain_delay_ms, longer than stop()'s
    // grace before SIGKILL, and a killed process writes no profile).
    const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
    gateway.child.kill('SIGINT');
    await exited;
    await gateway.stop();
    // The profile ends when the gateway exits: what came after the load is left out, like start-up.
    const afterLoadUs = (performance.now() - loadEnd) * 1000;
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('no .cpuprofile written');
    mkdirSync(outDir, { recursive: true });
    const kept = path.join(outDir, `${lane.id}${stream ? '-stream' : ''}${rate === null ? '' : `-rate${rate}`}.cpuprofile`);
    renameSync(path.join(profDir, file), kept);
    const profile = JSON.parse(readFileSync(kept, 'utf8')) as CpuProfile;
    process.stdout.write(
      `## ${lane.label}, ${stream ? '50-event streams' : 'non-streamed'}, ${rate === null ? `${connections} connections` : `${rate} req/s open-loop`}, ${durationS} s: ${Math.round(r.rps)}/s (${r.non2xx} non-2xx, ${r.errors} errors)\n\n` +
        `${summarise(profile, r.ok, (loadEnd - loadStart) * 1000, afterLoadUs)}\n\nprofile: ${path.relative(REPO, kept)}\n`,
    );
  } finally {
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) void main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
