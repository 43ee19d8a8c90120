import path from 'node:path'; import os from 'node:os'; import { mkdtempSync } from 'node:fs'; import { spawn } from 'node:child_process';
import { writeGatewayConfig } from './lib/gateway-config.js';
import { gatewayModel, LANES } from './lib/lanes.js';
import { freePort, startService, stopAll } from './lib/services.js';
import { ENDPOINT, requestBody, requestHeaders } from './request-bodies.js';
const REPO = process.cwd();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'i25d-'));
const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', 'bench/fake-upstream.ts', '--port', '0', '--events', '50', '--pace-ms', '0'] });
const port = await freePort(); const config = path.join(tmp, 'g.yaml');
writeGatewayConfig(config, { port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 64 });
const gw = await startService({ name: 'gateway', cwd: REPO, args: [process.argv[3] ?? 'dist/main.js', '--config', config], port, stdoutFile: path.join(tmp, 'log') });
const lane = LANES.find((l) => l.id === (process.argv[2] ?? 'responses-messages'))!;
async function burst(store: boolean, n: number) {
  const body = requestBody(lane.door, gatewayModel(lane.upstream, false), false, store ? {} : { store: false });
  await Promise.all(Array.from({ length: 32 }, async () => { for (let i = 0; i < n; i++) { const r = await fetch(gw.origin + ENDPOINT[lane.door], { method: 'POST', headers: requestHeaders(lane.door), body }); await r.text(); } }));
}
await burst(true, 100); await burst(false, 100);
for (const store of [false, true, false, true]) {
  const perf = spawn('perf', ['stat', '-x', ',', '-e', 'page-faults,instructions:u,instructions:k,task-clock', '-p', String(gw.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = ''; perf.stderr.on('data', (d) => (err += d));
  await new Promise((r) => setTimeout(r, 300));
  await burst(store, 150);
  await new Promise((r) => setTimeout(r, 100));
  perf.kill('SIGINT'); await new Promise((r) => perf.on('exit', r));
  const n = 32 * 150;
  const v = Object.fromEntries(err.trim().split('\n').map((l) => { const f = l.split(','); return [f[2], Number(f[0])]; }));
  console.log(store ? 'unset' : 'false', 'faults/req', (v['page-faults'] / n).toFixed(2), 'instr:u/req', Math.round(v['instructions:u'] / n), 'instr:k/req', Math.round(v['instructions:k'] / n), 'task-clock µs/req', (v['task-clock'] * 1000 / n).toFixed(0));
}
await stopAll();
