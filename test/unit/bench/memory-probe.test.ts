// The bench's memory probe, preloaded into a child node process: silent without its env var, and with
// it, one JSON report per SIGUSR2 carrying the peak sample and the pool sockets undici opened.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('../../../bench/lib/memory-probe.mjs', import.meta.url));
const UNDICI = fileURLToPath(new URL('../../../node_modules/undici/index.js', import.meta.url));

let dir: string;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memory-probe-'));
  server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** A child that opens `sockets` pooled connections, prints `ready`, and waits for SIGTERM. */
function child(env: NodeJS.ProcessEnv, sockets: number) {
  const script = `
    const { Pool } = require(${JSON.stringify(UNDICI)});
    const pool = new Pool(${JSON.stringify(origin)}, { connections: ${sockets} });
    Promise.all(Array.from({ length: ${sockets} }, () => pool.request({ path: '/', method: 'GET' }).then((r) => r.body.text())))
      .then(() => setTimeout(() => process.stdout.write('ready\\n'), 150));
    setInterval(() => {}, 1000);`;
  const proc = spawn(process.execPath, ['--import', PROBE, '-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<void>((resolve) => proc.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()));
  return { proc, ready };
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

describe('bench memory probe', () => {
  it('reports the peak breakdown and the pool sockets on SIGUSR2', async () => {
    const file = path.join(dir, 'probe.jsonl');
    const { proc, ready } = child({ SWITCHYARD_BENCH_MEMORY_PROBE: file }, 3);
    try {
      await ready;
      proc.kill('SIGUSR2');
      // appendFileSync creates the file before it writes the line: wait for the whole line.
      await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').includes('\n'), 5000);
      const report = JSON.parse(readFileSync(file, 'utf8').trim().split('\n')[0]!);
      expect(report.samples).toBeGreaterThan(0);
      expect(report.peak.rssMiB).toBeGreaterThan(10);
      expect(report.peak.heapUsedMiB).toBeGreaterThan(0);
      expect(report.peak.heapTotalMiB).toBeGreaterThanOrEqual(report.peak.heapUsedMiB);
      expect(report.peak.maxPoolSockets).toBe(3);
      expect(report.now.poolSockets).toBe(3);
      expect(proc.exitCode).toBeNull();
    } finally {
      proc.kill('SIGTERM');
    }
  });

  it('on SIGWINCH runs full GCs and reports the heap after them (the live heap)', async () => {
    const file = path.join(dir, 'probe-gc.jsonl');
    const { proc, ready } = child({ SWITCHYARD_BENCH_MEMORY_PROBE: file }, 1);
    try {
      await ready;
      proc.kill('SIGWINCH');
      await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').includes('\n'), 5000);
      const report = JSON.parse(readFileSync(file, 'utf8').trim().split('\n')[0]!);
      expect(report.gc.heapUsedMiB).toBeGreaterThan(0);
      expect(report.gc.heapTotalMiB).toBeGreaterThanOrEqual(report.gc.heapUsedMiB);
      expect(report.gc.gcMs).toBeGreaterThan(0);
      expect(report.peak).toBeUndefined();
      expect(proc.exitCode).toBeNull();
    } finally {
      proc.kill('SIGTERM');
    }
  });

  it('lists the major GCs since the last SIGUSR2 report, when each began and its pause', async () => {
    const file = path.join(dir, 'probe-major.jsonl');
    const { proc, ready } = child({ SWITCHYARD_BENCH_MEMORY_PROBE: file }, 1);
    const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
    try {
      await ready;
      proc.kill('SIGUSR2');
      await waitFor(() => lines().length === 1, 5000);
      const before = Date.now();
      proc.kill('SIGWINCH');
      await waitFor(() => lines().length === 2, 5000);
      // The observer's entries arrive a turn after the GC.
      await new Promise((r) => setTimeout(r, 100));
      proc.kill('SIGUSR2');
      await waitFor(() => lines().length === 3, 5000);
      proc.kill('SIGUSR2');
      await waitFor(() => lines().length === 4, 5000);
      const [, , forced, after] = lines();
      // SIGWINCH's two full GCs, and nothing after the report that listed them.
      expect(forced.majorGcs).toHaveLength(2);
      for (const gc of forced.majorGcs) {
        expect(gc.at).toBeGreaterThanOrEqual(before - 50);
        expect(gc.at).toBeLessThanOrEqual(forced.at);
        expect(gc.pauseMs).toBeGreaterThan(0);
      }
      expect(after.majorGcs).toEqual([]);
    } finally {
      proc.kill('SIGTERM');
    }
  });

  it('does nothing without its env var (SIGUSR2 keeps its default: the process ends)', async () => {
    const { proc, ready } = child({ SWITCHYARD_BENCH_MEMORY_PROBE: '' }, 1);
    await ready;
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.once('exit', (_code, signal) => resolve(signal)));
    proc.kill('SIGUSR2');
    expect(await exited).toBe('SIGUSR2');
  });
});
