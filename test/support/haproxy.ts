// A real HAProxy (Debian's package) in front of gateway processes, as a platform team runs one: round
// robin, an HTTP health check on /readyz every `checkMs`, and no retry of a refused connection
// (`retries 0`, no `option redispatch`), which is what kube-proxy gives a Service. Loopback ports only,
// its own temp dir, run in the foreground (-db) and stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './gateway-process.js';
import { requireTool } from './required-tools.js';

export interface Haproxy {
  /** http://127.0.0.1:<port>, the load-balanced front. */
  url: string;
  /** Each backend server's status as HAProxy sees it (UP, DOWN, …), by index. */
  serverStatus(): Promise<string[]>;
  /** Resolves once HAProxy reports server `index` UP (throws after `timeoutMs`). */
  waitUp(index: number, timeoutMs?: number): Promise<void>;
  output(): string;
  stop(): Promise<void>;
}

export async function startHaproxy(backendPorts: number[], options: { checkPath?: string; checkMs?: number } = {}): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-haproxy-'));
  const port = await freePort();
  const statsPort = await freePort();
  const file = join(dir, 'haproxy.cfg');
  const checkMs = options.checkMs ?? 500;
  writeFileSync(
    file,
    [
      'global',
      '  maxconn 4000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout check 1s',
      // A refused or failed connection to a server is the caller's error: no retry, no redispatch.
      '  retries 0',
      'frontend front',
      `  bind 127.0.0.1:${port}`,
      '  default_backend gateways',
      'frontend stats',
      `  bind 127.0.0.1:${statsPort}`,
      '  stats enable',
      '  stats uri /stats',
      'backend gateways',
      '  balance roundrobin',
      '  option httpchk',
      `  http-check send meth GET uri ${options.checkPath ?? '/readyz'}`,
      '  http-check expect status 200',
      `  default-server check inter ${checkMs} fall 2 rise 2`,
      ...backendPorts.map((p, i) => `  server g${i} 127.0.0.1:${p}`),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(requireTool('haproxy'), ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const serverStatus = async (): Promise<string[]> => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`, { signal: AbortSignal.timeout(2000) })).text();
    const status: string[] = [];
    for (const line of csv.split('\n')) {
      const cols = line.split(',');
      const m = /^g(\d+)$/.exec(cols[1] ?? '');
      if (cols[0] === 'gateways' && m) status[Number(m[1])] = cols[17] ?? '';
    }
    return status;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready once the stats page answers.
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      await serverStatus();
      break;
    } catch {
      if (Date.now() > until || child.exitCode !== null) {
        await stop();
        throw new Error(`haproxy did not start: ${out.slice(-1000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    serverStatus,
    async waitUp(index, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      while (Date.now() < end) {
        if ((await serverStatus())[index] === 'UP') return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`haproxy never saw server g${index} UP: ${(await serverStatus()).join(' ')}`);
    },
    output: () => out,
    stop,
  };
}
