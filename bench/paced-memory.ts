// Peak memory of one or two gateway builds holding many concurrent paced streams (the bench's `paced`
// scenario alone, without DIRECT/FLOOR/JSON-FLOOR), for finding and cutting where the memory goes:
//
//   npm run build && cp -r dist bench/results/dist-a   # the "before" build, then change and rebuild
//   node --import tsx bench/paced-memory.ts --a bench/results/dist-a/main.js --b dist/main.js \
//     [--lanes messages-messages|all|a,b] [--streams 1000] [--hold-ms 3000] [--rounds 2] [--snapshot]
//     [--saturation S] [--pace-ms 20] [--gateway-flags '--trace-gc'] [--keep-logs DIR] [--store-false]
//     [--max-bytes N]   (responses_store.max_bytes of both builds; default: the product's)
//
// With --open-streams N it runs the bench's "many open streams" row instead (lib/open-streams-memory.ts):
// per build a fresh gateway holding N streams over the lanes at once (--pace-ms default 1000 there,
// --ramp-ms, --hold-ms; by default every stream outlasts the row), reporting peak RSS and the live heap
// per open stream.
//
// With --saturation S each lane first runs S seconds of non-streamed and streamed saturation (64
// connections), as the bench does before its paced phase, and the saturation peak is printed too.
// Each round runs A then B (B then A on odd rounds), each in a fresh gateway process started with the
// bench's memory probe, and prints VmHWM (peak RSS) and the probe's breakdown at the peak. --snapshot
// writes a heap snapshot of each build in the middle of the hold (V8's `--heapsnapshot-signal`; the
// snapshot pauses the gateway, so the streams' timing of that round means nothing) to
// bench/results/profiles/.
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { parseFlags } from './cli-flags.js';
import { writeGatewayConfig } from './lib/gateway-config.js';
import { gatewayModel, LANES, type Lane } from './lib/lanes.js';
import { saturate } from './lib/load.js';
import { memoryMiB, resetPeakRss } from './lib/proc-stats.js';
import { freePort, startService, stopAll, type Service } from './lib/services.js';
import { pacedStreams } from './lib/stream-clients.js';
import { describeOpenStreams, heldEvents, measureOpenStreams } from './lib/open-streams-memory.js';
import { requestBody, requestHeaders, requestPath } from './request-bodies.js';
import { STREAM_TERMINAL } from './upstream-replies.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const SNAPSHOT_SIGNAL = 'SIGTTIN';

type ProbePeak = Record<string, number> | null;

/** SIGUSR2 to the memory probe: its peak sample since the last signal (lib/memory-probe.mjs), and the sample at the signal. */
async function probePeak(gateway: Service, probeFile: string): Promise<ProbePeak> {
  return (await probeReport(gateway, probeFile))?.peak ?? null;
}

async function probeReport(gateway: Service, probeFile: string): Promise<{ peak: Record<string, number>; now: Record<string, number> } | null> {
  const before = existsSync(probeFile) ? readFileSync(probeFile, 'utf8').trim().split('\n').length : 0;
  gateway.child.kill('SIGUSR2');
  for (let i = 0; i < 40; i++) {
    await new Promise((res) => setTimeout(res, 50));
    const lines = existsSync(probeFile) ? readFileSync(probeFile, 'utf8').trim().split('\n') : [];
    if (lines.length > before) return JSON.parse(lines[lines.length - 1]!) as { peak: Record<string, number>; now: Record<string, number> };
  }
  return null;
}

function describePeak(peak: ProbePeak): string {
  const f = (n: number | undefined) => (n === undefined ? '?' : n.toFixed(0));
  return (
    `at the peak: heap ${f(peak?.heapUsedMiB)}/${f(peak?.heapTotalMiB)}, external ${f(peak?.externalMiB)} (array buffers ${f(peak?.arrayBuffersMiB)}), ` +
    `pool sockets ${peak?.maxPoolSockets}, caller sockets ${peak?.maxOtherTcpHandles}`
  );
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const builds = (['a', 'b'] as const).filter((k) => flags.get(k)).map((k) => ({ name: k.toUpperCase(), entry: path.resolve(REPO, flags.get(k)!) }));
  if (builds.length === 0) throw new Error('--a ENTRY [--b ENTRY] required');
  // Several lanes run one after the other in the same gateway process, as in the bench's paced phase.
  const laneIds = (flags.get('lanes') ?? 'messages-messages').split(',');
  const lanes = laneIds[0] === 'all' ? LANES : laneIds.map((id) => LANES.find((l) => l.id === id));
  if (lanes.some((l) => !l)) throw new Error(`--lanes: all, or some of ${LANES.map((l) => l.id).join(', ')}`);
  const streams = Number(flags.get('streams') ?? 1000);
  const holdMs = Number(flags.get('hold-ms') ?? 3000);
  const rounds = Number(flags.get('rounds') ?? 1);
  const paceMs = Number(flags.get('pace-ms') ?? 20);
  const snapshot = flags.has('snapshot');
  // --store-false: the Responses door's requests say `store: false` (default: unset, as real callers send).
  const bodyOptions = flags.has('store-false') ? { store: false as const } : {};
  const saturationS = Number(flags.get('saturation') ?? 0);
  const maxBytes = flags.has('max-bytes') ? Number(flags.get('max-bytes')) : undefined;
  // Extra node flags for the gateways, e.g. --gateway-flags=--trace-gc (its output lands in the log).
  const gatewayFlags = (flags.get('gateway-flags') ?? '').split(' ').filter(Boolean);
  const keepLogs = flags.get('keep-logs');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-paced-mem-'));
  const profiles = path.join(REPO, 'bench', 'results', 'profiles');
  mkdirSync(profiles, { recursive: true });
  if (flags.has('open-streams')) {
    const openPaceMs = Number(flags.get('pace-ms') ?? 1000);
    const openRampMs = Number(flags.get('ramp-ms') ?? 10_000);
    const openHoldMs = Number(flags.get('hold-ms') ?? 20_000);
    try {
      for (let round = 0; round < rounds; round++) {
        for (const build of round % 2 ? [...builds].reverse() : builds) {
          const r = await measureOpenStreams({
            repo: REPO,
            tmp,
            entry: build.entry,
            streams: Number(flags.get('open-streams')),
            paceMs: openPaceMs,
            // Every stream outlasts the row unless told otherwise, as in the bench (a stream that ends is relaunched:
            // a churn of new requests the row does not mean to measure).
            events: Number(flags.get('events') ?? heldEvents({ rampMs: openRampMs, holdMs: openHoldMs, paceMs: openPaceMs })),
            rampMs: openRampMs,
            holdMs: openHoldMs,
            lanes: lanes as Lane[],
            storeFalse: flags.has('store-false'),
            gatewayFlags,
            ...(snapshot ? { snapshotDir: profiles } : {}),
            log: (m) => console.log(`  ${m}`),
          });
          console.log(`round ${round + 1} ${build.name}: ${describeOpenStreams(r)}`);
          if (keepLogs) copyFileSync(path.join(tmp, 'open-streams-gateway.log'), path.join(keepLogs, `open-streams-gateway-${build.name}-${round}.log`));
          if (r.snapshot) console.log(`  heap snapshot: ${path.relative(REPO, r.snapshot)} (idle beside it)`);
          console.log(`  gap p99 by lane: ${Object.entries(r.laneGapP99Ms).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')} ms`);
        }
      }
    } finally {
      await stopAll();
      rmSync(tmp, { recursive: true, force: true });
    }
    return;
  }
  try {
    const upstream = await startService({
      name: 'paced-upstream',
      cwd: REPO,
      args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', String(paceMs)],
    });
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...builds].reverse() : builds;
      for (const build of order) {
        const port = await freePort();
        const config = path.join(tmp, `gateway-${build.name}.yaml`);
        writeGatewayConfig(config, { port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 2048 });
        // --max-bytes N: the stored answers' bound (responses_store.max_bytes) instead of the default.
        if (maxBytes !== undefined) appendFileSync(config, `responses_store:\n  max_bytes: ${maxBytes}\n`);
        const probeFile = path.join(tmp, `probe-${build.name}-${round}.jsonl`);
        const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', SWITCHYARD_BENCH_MEMORY_PROBE: probeFile };
        delete env.SWITCHYARD_CONFIG;
        const gateway = await startService({
          name: `gateway-${build.name}`,
          cwd: tmp,
          args: [
            ...gatewayFlags,
            ...(snapshot ? [`--heapsnapshot-signal=${SNAPSHOT_SIGNAL}`] : []),
            '--import',
            path.join(REPO, 'bench', 'lib', 'memory-probe.mjs'),
            build.entry,
            '--config',
            config,
          ],
          port,
          stdoutFile: path.join(tmp, `gateway-${build.name}.log`),
          env,
        });
        await request(upstream.origin + '/_stats?reset=1').then((r) => r.body.dump());
        const rampMs = 1000;
        const results = [];
        // --saturation S: first S seconds of non-streamed then streamed saturation per lane (64
        // connections, the bench's sat-json and sat-stream), as the bench runs before its paced phase;
        // VmHWM and the probe's peak are read after it, then restarted for the paced streams.
        if (saturationS > 0) {
          for (const lane of lanes as Lane[]) {
            for (const stream of [false, true]) {
              const r = await saturate(
                { url: gateway.origin + requestPath(lane.door, gatewayModel(lane.upstream, false), stream), headers: requestHeaders(lane.door), body: requestBody(lane.door, gatewayModel(lane.upstream, false), stream, bodyOptions) },
                64,
                saturationS,
              );
              if (r.non2xx || r.errors) console.log(`  saturation ${lane.id}${stream ? ' stream' : ''}: ${r.non2xx} non-2xx, ${r.errors} errors`);
            }
          }
          const sat = memoryMiB(gateway.pid);
          const satReport = await probeReport(gateway, probeFile);
          const now = satReport?.now;
          // The paced peak starts from what the saturation left resident (the reset sets VmHWM to VmRSS).
          console.log(
            `round ${round + 1} ${build.name} saturation: VmHWM ${sat.peakRssMiB.toFixed(1)} MiB; ${describePeak(satReport?.peak ?? null)}; ` +
              `after it: VmRSS ${sat.rssMiB.toFixed(1)}, heap ${now?.heapUsedMiB?.toFixed(0)}/${now?.heapTotalMiB?.toFixed(0)}, external ${now?.externalMiB?.toFixed(0)}`,
          );
          resetPeakRss(gateway.pid);
        }
        let snapshotTimer: NodeJS.Timeout | undefined;
        for (const [i, lane] of (lanes as Lane[]).entries()) {
          // In the last lane: with several lanes the heap is at its fullest then.
          if (snapshot && i === lanes.length - 1) snapshotTimer = setTimeout(() => gateway.child.kill(SNAPSHOT_SIGNAL), rampMs + holdMs / 2);
          results.push(
            await pacedStreams(
              {
                origin: gateway.origin,
                path: requestPath(lane.door, gatewayModel(lane.upstream, false), true),
                headers: requestHeaders(lane.door),
                body: requestBody(lane.door, gatewayModel(lane.upstream, false), true, bodyOptions),
                terminal: STREAM_TERMINAL[lane.door],
              },
              { concurrency: streams, rampMs, holdMs, paceMs, drainMs: 5000 + 50 * paceMs * 2 },
            ),
          );
        }
        clearTimeout(snapshotTimer);
        const held = Math.min(...results.map((r) => r.minHeld));
        const failed = results.reduce((n, r) => n + r.failures, 0);
        const completed = results.reduce((n, r) => n + r.completed, 0);
        const gapP99 = Math.max(...results.map((r) => r.excessGap.p99));
        const hwm = memoryMiB(gateway.pid).peakRssMiB;
        const peak = await probePeak(gateway, probeFile);
        console.log(
          `round ${round + 1} ${build.name}${saturationS > 0 ? ' paced' : ''}: VmHWM ${hwm.toFixed(1)} MiB; ${describePeak(peak)}; ` +
            `held ≥${held}, ${completed} completed, ${failed} failed, worst gap beyond pacing p99 ${gapP99.toFixed(1)} ms` +
            (failed ? `; first failure: ${results.find((r) => r.firstFailure)?.firstFailure}` : ''),
        );
        await gateway.stop();
        if (keepLogs) copyFileSync(path.join(tmp, `gateway-${build.name}.log`), path.join(keepLogs, `gateway-${build.name}-${round}.log`));
        if (snapshot) {
          for (const name of readdirSync(tmp).filter((n) => n.endsWith('.heapsnapshot'))) {
            const to = path.join(profiles, `paced-${laneIds.join('+')}-${build.name}-${round}.heapsnapshot`);
            renameSync(path.join(tmp, name), to);
            console.log(`  heap snapshot: ${path.relative(REPO, to)}`);
          }
        }
      }
    }
  } finally {
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
