// A long run of one lane at saturation on one gateway process (default config), in windows: CPU µs per
// request, req/s and RSS per window. The other rows last seconds; state that grows with every request
// (stored answers, their claims, limits' windows) reaches its bounds only after hundreds of thousands of
// requests, and a cost that grows past a bound shows only here. The memory backend's claims did: past
// 500,000 every claim walked the map's deleted entries, and a gateway at 5,500 req/s fell to 1,700 within
// two minutes of reaching the bound (bench/profiles.md, "claims past their bound").
//
//   npm run build && node --import tsx bench/soak.ts [--lane responses-messages] [--windows 7] [--window-s 50]
//     [--stream] [--entry dist/main.js]
//
// Prints one line per window and, at the end, the last window's CPU per request against the first's
// (exit code 1 above 1.25×: the run got dearer as it went).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags } from './cli-flags.js';
import { writeGatewayConfig } from './lib/gateway-config.js';
import { gatewayModel, LANES } from './lib/lanes.js';
import { saturate } from './lib/load.js';
import { cpuSeconds, memoryMiB } from './lib/proc-stats.js';
import { freePort, startService, stopAll } from './lib/services.js';
import { requestBody, requestHeaders, requestPath } from './request-bodies.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
/** The last window may cost this much more CPU per request than the first before the run fails. */
const MAX_GROWTH = 1.25;

const flags = parseFlags(process.argv.slice(2));
const laneId = flags.get('lane') ?? 'responses-messages';
const lane = LANES.find((l) => l.id === laneId);
if (!lane) throw new Error(`--lane: one of ${LANES.map((l) => l.id).join(', ')}`);
const windows = Number(flags.get('windows') ?? 7);
const windowS = Number(flags.get('window-s') ?? 50);
const stream = flags.has('stream');
const entry = path.resolve(REPO, flags.get('entry') ?? 'dist/main.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-soak-'));

try {
  const upstream = await startService({ name: 'soak-upstream', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', '0'] });
  const port = await freePort();
  const config = path.join(tmp, 'gateway.yaml');
  writeGatewayConfig(config, { port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 256 });
  const gateway = await startService({ name: 'soak-gateway', cwd: tmp, args: [entry, '--config', config], port, stdoutFile: path.join(tmp, 'gateway.log') });
  const target = { url: gateway.origin + requestPath(lane.door, gatewayModel(lane.upstream, false), stream), headers: requestHeaders(lane.door), body: requestBody(lane.door, gatewayModel(lane.upstream, false), stream) };
  console.log(`soak: ${lane.id}${stream ? ' streams' : ''}, ${windows} windows of ${windowS} s, 64 connections, ${path.relative(REPO, entry)}`);
  const cpuPerRequest: number[] = [];
  let total = 0;
  for (let w = 1; w <= windows; w++) {
    const cpu0 = cpuSeconds(gateway.pid);
    const r = await saturate(target, 64, windowS);
    const us = ((cpuSeconds(gateway.pid) - cpu0) * 1e6) / r.ok;
    cpuPerRequest.push(us);
    total += r.ok;
    console.log(
      `window ${w}: ${Math.round(r.rps)} req/s, ${us.toFixed(0)} µs CPU per request, ${total.toLocaleString('en-US')} requests so far, ` +
        `RSS ${memoryMiB(gateway.pid).rssMiB.toFixed(0)} MiB${r.non2xx || r.errors ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`,
    );
  }
  const growth = cpuPerRequest.at(-1)! / cpuPerRequest[0]!;
  console.log(`last window against the first: ${growth.toFixed(2)}× CPU per request (limit ${MAX_GROWTH}×)`);
  if (growth > MAX_GROWTH) process.exitCode = 1;
} finally {
  await stopAll();
  rmSync(tmp, { recursive: true, force: true });
}
