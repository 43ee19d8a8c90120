// The real gateway as a child process (`node --import tsx src/main.ts`, as `npm start` runs it), on a
// free loopback port, with a config written to a temp dir. Stopped by its own pid only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface GatewayProcess {
  url: string;
  port: number;
  /** The process's pid (the cluster primary with --workers). */
  pid: number;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
  /** Resolves with the exit code once it exits by itself (start-up failures). */
  exited: Promise<number | null>;
  /** The config file it reads (rewrite it and send SIGHUP to reload). */
  configFile: string;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts a gateway with `config` (JSON is YAML) and waits for /healthz, unless `wait` is false. A
 * config without `auth` runs explicitly open (`auth.open: true`); `env` is added to this process's.
 */
export async function startGatewayProcess(
  config: Record<string, unknown>,
  /** `configFile`: where to write the config, relative to the repository (default: a fresh temp dir);
   * for a screenshot that shows the config's path. */
  options: { workers?: number; port?: number; wait?: boolean; readyMs?: number; configFile?: string; env?: Record<string, string> } = {},
): Promise<GatewayProcess> {
  const port = options.port ?? (await freePort());
  if (options.configFile) mkdirSync(dirname(options.configFile), { recursive: true });
  const file = options.configFile ?? join(mkdtempSync(join(tmpdir(), 'switchyard-proc-')), 'config.yaml');
  const server = { ...(config.server as object | undefined), host: '127.0.0.1', port };
  writeFileSync(file, JSON.stringify({ log: { level: 'warn' }, auth: { open: true }, ...config, server }));
  const args = ['--import', 'tsx', 'src/main.ts', '--config', file];
  if (options.workers) args.push('--workers', String(options.workers));
  const env = options.env ? { ...process.env, ...options.env } : process.env;
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  // 'exit' can come before the last of the child's output has been read; 'close' comes after it, unless a
  // process that inherited the pipes outlives the child, so the wait for it is bounded.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      const bound = setTimeout(() => resolve(code), 2000);
      void closed.then(() => (clearTimeout(bound), resolve(code)));
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const proc: GatewayProcess = {
    url,
    port,
    pid: child.pid!,
    output: () => out,
    exited,
    configFile: file,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  if (options.wait === false) return proc;
  const until = Date.now() + (options.readyMs ?? 30_000);
  let done = false;
  void exited.then(() => (done = true));
  while (Date.now() < until && !done) {
    try {
      if ((await fetch(url + '/healthz', { signal: AbortSignal.timeout(1000) })).ok) return proc;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await proc.stop();
  throw new Error(`gateway on port ${port} did not become ready: ${out.slice(-2000)}`);
}

/**
 * Waits until the gateway's output holds `pattern`, then returns the output. The gateway's log is
 * written asynchronously (gathered, then handed over every few hundred ms), so a line is not there
 * the moment the behaviour that logs it is visible over HTTP.
 */
export async function waitForOutput(gw: GatewayProcess, pattern: string | RegExp, ms = 10_000): Promise<string> {
  const until = Date.now() + ms;
  const found = () => (typeof pattern === 'string' ? gw.output().includes(pattern) : pattern.test(gw.output()));
  while (!found()) {
    if (Date.now() > until) throw new Error(`no ${String(pattern)} in: ${gw.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return gw.output();
}
