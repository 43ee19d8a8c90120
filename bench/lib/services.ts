// Child processes of a bench run (fake upstreams, FLOOR proxies, gateways): started with their own
// handle, awaited until they answer, stopped by that handle (SIGTERM, then SIGKILL) — never by name.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import net from 'node:net';
import { request } from 'undici';

export interface Service {
  name: string;
  pid: number;
  port: number;
  origin: string;
  child: ChildProcess;
  /** Last few KiB of stderr, for diagnostics. */
  stderrTail(): string;
  exited(): boolean;
  stop(): Promise<void>;
}

const live = new Set<Service>();

/** Kill whatever is still running when this process ends, however it ends. */
process.on('exit', () => {
  for (const s of live) if (!s.exited()) s.child.kill('SIGKILL');
});

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((s) => s.stop()));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

interface SpawnOptions {
  name: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Known port (gateway); otherwise read from a `{"ready":true,"port":N}` stdout line. */
  port?: number;
  /** Stdout appended to this file (as `npm start >> file` would), instead of a pipe to this process:
   * a service's log lines then cost this process (the load generator) nothing. Needs `port`. */
  stdoutFile?: string;
  /** Readiness probe path polled until 200 (default /healthz). */
  healthPath?: string;
  timeoutMs?: number;
}

export async function startService(options: SpawnOptions): Promise<Service> {
  if (options.stdoutFile !== undefined && options.port === undefined) throw new Error(`${options.name}: stdoutFile needs a known port`);
  const stdoutFd = options.stdoutFile === undefined ? undefined : openSync(options.stdoutFile, 'a');
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', stdoutFd ?? 'pipe', 'pipe'],
  });
  // The child holds its own copy of the descriptor.
  if (stdoutFd !== undefined) closeSync(stdoutFd);
  let tail = '';
  let exitedFlag = false;
  let exitInfo = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => {
    tail = (tail + d).slice(-8192);
  });
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      exitInfo = `exit code ${code} signal ${signal}`;
      resolve();
    });
  });

  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let port = options.port;
  if (port === undefined) {
    port = await new Promise<number>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`${options.name}: no ready line after ${options.timeoutMs ?? 30_000} ms\n${tail}`)), Math.max(0, deadline - Date.now()));
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (d: string) => {
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf('\n')) !== -1) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          try {
            const msg = JSON.parse(line) as { ready?: boolean; port?: number };
            if (msg.ready && typeof msg.port === 'number') {
              clearTimeout(timer);
              resolve(msg.port);
            }
          } catch {
            // ordinary log line
          }
        }
      });
      void exitedPromise.then(() => {
        clearTimeout(timer);
        reject(new Error(`${options.name} exited before it was ready (${exitInfo})\n${tail}`));
      });
    });
  } else {
    child.stdout?.resume();
  }

  const origin = `http://127.0.0.1:${port}`;
  const service: Service = {
    name: options.name,
    pid: child.pid!,
    port,
    origin,
    child,
    stderrTail: () => tail,
    exited: () => exitedFlag,
    async stop() {
      if (!exitedFlag) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          if (!exitedFlag) child.kill('SIGKILL');
        }, 3000);
        await exitedPromise;
        clearTimeout(timer);
      }
      live.delete(service);
    },
  };
  live.add(service);

  // Readiness: the health endpoint answers 200 (a TCP accept alone is not enough for the gateway).
  const path = options.healthPath ?? '/healthz';
  for (;;) {
    if (exitedFlag) throw new Error(`${options.name} exited before it was ready (${exitInfo})\n${tail}`);
    try {
      const res = await request(origin + path, { headersTimeout: 1000, bodyTimeout: 1000 });
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.stop();
      throw new Error(`${options.name}: ${path} not ready after ${options.timeoutMs ?? 30_000} ms\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return service;
}
