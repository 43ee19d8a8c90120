import path from 'node:path'; import os from 'node:os'; import { mkdtempSync } from 'node:fs';
import { writeGatewayConfig } from './lib/gateway-config.js';
import { gatewayModel, LANES } from './lib/lanes.js';
import { freePort, startService, stopAll } from './lib/services.js';
import { ENDPOINT, requestBody, requestHeaders } from './request-bodies.js';
const REPO = process.cwd();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'i25d-'));
const upstream = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', 'bench/fake-upstream.ts', '--port', '0', '--events', '50', '--pace-ms', '0'] });
const port = await freePort(); const config = path.join(tmp, 'g.yaml');
writeGatewayConfig(config, { port, metrics: true, upstream: upstream.origin, pacedUpstream: upstream.origin, connections: 64 });
const gw = await startService({ name: 'gateway', cwd: REPO, args: ['dist/main.js', '--config', config], port, stdoutFile: path.join(tmp, 'log') });
const lane = LANES.find((l) => l.id === (process.argv[2] ?? 'responses-messages'))!;
for (let i = 0; i < 3000; i++) { const r = await fetch(gw.origin + ENDPOINT[lane.door], { method: 'POST', headers: requestHeaders(lane.door), body: requestBody(lane.door, gatewayModel(lane.upstream, false), false, {}) }); await r.text(); }
await new Promise((r) => setTimeout(r, 200));
gw.child.kill('SIGUSR2'); await new Promise((r) => setTimeout(r, 300));
console.log(gw.stderrTail());
await stopAll();
