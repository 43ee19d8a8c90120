// The gateway's listen backlog (server.listen_backlog): node's default of 511 overflowed when ~10,000
// callers connected within seconds on a busy host (dropped handshakes: connect timeouts and resets), so the
// gateway asks for 4,096 unless configured; the kernel caps it at net.core.somaxconn. Read back from the
// kernel: `ss -ltn` shows a listening socket's backlog as its Send-Q.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());

function listenBacklog(port: number): number {
  const out = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' });
  // State Recv-Q Send-Q Local Peer
  return Number(out.trim().split(/\s+/)[2]);
}

let gateway: GatewayProcess | undefined;
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});

const models = { providers: { up: { protocol: 'messages', base_url: 'http://127.0.0.1:9' } }, models: { m: { provider: 'up', model: 'x' } } };

describe('listen backlog', () => {
  it('is 4,096 by default (capped by net.core.somaxconn)', async () => {
    gateway = await startGatewayProcess(models);
    expect(listenBacklog(gateway.port)).toBe(Math.min(4096, somaxconn));
  }, 40_000);

  it('server.listen_backlog sets it', async () => {
    gateway = await startGatewayProcess({ ...models, server: { listen_backlog: 300 } });
    expect(listenBacklog(gateway.port)).toBe(300);
  }, 40_000);
});
