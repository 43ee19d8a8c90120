// --workers N: several processes share one port, and /metrics on any of them shows all of them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

// Three processes each compile src/ with tsx before they listen: on a loaded 2-core machine that has taken
// over 20 s, so the bound is generous and an exit ends the wait at once.
async function waitReady(url: string, ms: number, proc: ChildProcess, output: () => string): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode} before ready:\n${output()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready after ${ms} ms: ${url}\n${output()}`);
}

let child: ChildProcess | undefined;
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
});

describe('--workers 2', () => {
  it('serves on one port from two processes and aggregates their metrics', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-workers-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, `server: { host: 127.0.0.1, port: ${port} }\nlog: { level: warn }\nauth: { open: true }\nstate: { path: ${JSON.stringify(join(dir, 'state'))} }\nproviders: { demo: { protocol: demo } }\nmodels: { demo: { provider: demo } }\n`);
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--config', file, '--workers', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const base = `http://127.0.0.1:${port}`;
    await waitReady(base + '/healthz', 90_000, child, () => output);
    for (let i = 0; i < 40; i++) {
      const r = await fetch(base + '/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ model: 'demo', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(r.status).toBe(200);
      await r.text();
    }
    const metrics = await (await fetch(base + '/metrics')).text();
    const line = metrics.split('\n').find((l) => l.startsWith('switchyard_requests_total{front_door="messages"'));
    expect(line, output).toBeDefined();
    expect(Number(line!.split(' ').pop())).toBe(40);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child!.once('exit', (c) => r(c)));
    expect(code).toBe(0);
  }, 150_000);
});

describe('--workers with an explicit memory backend', () => {
  it('is refused at start: each worker would enforce every limit on its own (N× the limits)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-workers-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, `server: { host: 127.0.0.1, port: ${await freePort()} }\nauth: { open: true }\nstate: { backend: memory }\nproviders: { demo: { protocol: demo } }\nmodels: { demo: { provider: demo } }\n`);
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--config', file, '--workers', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
    clearTimeout(timer);
    expect(code, output).toBe(2);
    expect(output).toContain('state.backend: memory cannot be shared by --workers 2');
  }, 30_000);
});
