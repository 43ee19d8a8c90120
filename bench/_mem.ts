import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);
import path from 'node:path'; import os from 'node:os'; import { mkdtempSync, readdirSync, renameSync } from 'node:fs';
import { writeGatewayConfig } from './lib/gateway-config.js';
import { gatewayModel, LANES } from './lib/lanes.js';
import { freePort, startService, stopAll } from './lib/services.js';
import { ENDPOINT, requestBody, requestHeaders } from './request-bodies.js';
const REPO = process.cwd();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'i25d-'));
const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', 'bench/fake-upstream.ts', '--port', '0', '--events', '50', '--pace-ms', '0'] });
const port = await freePort(); const config = path.join(tmp, 'g.yaml');
writeGatewayConfig(config, { port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 64 });
const snap = process.argv.includes('--snap');
const gw = await startService({ name: 'gateway', cwd: tmp, args: [...(snap ? ['--heapsnapshot-signal=SIGUSR2'] : []), path.resolve(process.argv[2]!), '--config', config], port, stdoutFile: path.join(tmp, 'log') });
const total = Number(process.argv[3] ?? 40000);
let done = 0;
for (const id of ['responses-messages', 'responses-responses']) {
  const lane = LANES.find((l) => l.id === id)!;
  const body = requestBody(lane.door, gatewayModel(lane.upstream, false), false, {});
  await Promise.all(Array.from({ length: 32 }, async () => { for (let i = 0; i < total / 64; i++) { const r = await fetch(gw.origin + ENDPOINT[lane.door], { method: 'POST', headers: requestHeaders(lane.door), body }); await r.text(); done++; } }));
}
await new Promise((r) => setTimeout(r, 500));
const m = await (await fetch(gw.origin + '/metrics')).text();
const g = (n: string) => Number((m.match(new RegExp('^' + n + '(?:\\{[^}]*\\})? ([0-9.e+]+)', 'm')) ?? [])[1]) / 1048576;
const rss = Number(require('node:fs').readFileSync(`/proc/${gw.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024;
const hwm = Number(require('node:fs').readFileSync(`/proc/${gw.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1]) / 1024;
console.log(`${process.argv[2]}: ${done} stored; RSS ${rss.toFixed(0)} MiB (peak ${hwm.toFixed(0)}), heap used ${g('switchyard_nodejs_heap_size_used_bytes').toFixed(0)} MiB (total ${g('switchyard_nodejs_heap_size_total_bytes').toFixed(0)}), external ${g('switchyard_nodejs_external_memory_bytes').toFixed(0)} MiB`);
if (snap) {
  gw.child.kill('SIGUSR2');
  for (let i = 0; i < 120 && !readdirSync(tmp).some((n) => n.endsWith('.heapsnapshot')); i++) await new Promise((r) => setTimeout(r, 1000));
  await new Promise((r) => setTimeout(r, 5000));
  const f = readdirSync(tmp).find((n) => n.endsWith('.heapsnapshot'));
  if (f) { renameSync(path.join(tmp, f), path.join(REPO, 'bench/results', path.basename(path.dirname(path.dirname(path.resolve(process.argv[2]!)))) + '.heapsnapshot')); console.log('snapshot kept'); }
}
await stopAll();
