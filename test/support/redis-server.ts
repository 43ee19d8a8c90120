// A real redis-server (Debian's package) for tests: a free loopback port, its own temp dir, no
// persistence; stopped by its pid. `kill` + `start` on the same port simulate an outage.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from './required-tools.js';

export interface RedisServer {
  port: number;
  url: string;
  /** Starts (again) on the same port; resolves when it accepts connections. */
  start(): Promise<void>;
  /** SIGKILL, as a crash; resolves when the process has exited. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const binary = requireTool('redis-server');
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const proc = spawn(
        binary,
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'notice'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = proc;
      let out = '';
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`redis-server did not start within 10 s on port ${port}: ${out.slice(-500)}`));
      }, 10_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        if (/Ready to accept connections/i.test(out)) {
          clearTimeout(timer);
          proc.stdout?.off('data', onData);
          proc.stdout?.resume();
          resolve();
        }
      };
      proc.stdout?.on('data', onData);
      proc.stderr?.on('data', (c: Buffer) => (out += c.toString()));
      proc.once('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`cannot run ${binary}: ${err.message}`));
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`));
      });
    });

  const kill = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    kill,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
