// A real Prometheus (the Debian `prometheus` package) for tests: a temp config and TSDB, loopback
// only, a free port, every wait bounded, stopped by pid. CI installs it with
//   apt-get update && apt-get install -y --no-install-recommends prometheus
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A port that was free a moment ago on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface PromResult {
  status: string;
  error?: string;
  errorType?: string;
  data?: { resultType: string; result: { metric: Record<string, string>; value?: [number, string] }[] };
}

export interface PrometheusOptions {
  /** host:port of each scrape target (127.0.0.1 only). */
  targets: string[];
  metricsPath?: string;
  /** Absolute paths of rule files to load. */
  ruleFiles?: string[];
  scrapeIntervalSeconds?: number;
}

export interface RunningPrometheus {
  url: string;
  pid: number;
  configPath: string;
  /** Instant query through the HTTP API; never throws on PromQL errors (status "error" instead). */
  query(expr: string): Promise<PromResult>;
  /** Resolves once every target was scraped successfully (health "up"). */
  waitForTargetsUp(timeoutMs: number): Promise<void>;
  /** /api/v1/rules → every rule with its health and last error. */
  rules(): Promise<{ name: string; type: string; health: string; lastError?: string; query: string }[]>;
  /** stderr so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 10_000;

export async function startPrometheus(binary: string, options: PrometheusOptions): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-prom-'));
  const interval = `${options.scrapeIntervalSeconds ?? 1}s`;
  const configPath = join(dir, 'prometheus.yml');
  const config = [
    'global:',
    `  scrape_interval: ${interval}`,
    `  scrape_timeout: ${interval}`,
    `  evaluation_interval: ${interval}`,
    ...(options.ruleFiles?.length ? ['rule_files:', ...options.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`)] : []),
    'scrape_configs:',
    '  - job_name: switchyard',
    `    metrics_path: ${JSON.stringify(options.metricsPath ?? '/metrics')}`,
    '    static_configs:',
    `      - targets: [${options.targets.map((t) => JSON.stringify(t)).join(', ')}]`,
    '',
  ].join('\n');
  writeFileSync(configPath, config);

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${configPath}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (s: string) => {
    if (stderr.length < 64 * 1024) stderr += s;
  });
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));

  const stop = async () => {
    if (!exited && child.pid !== undefined) {
      process.kill(child.pid, 'SIGTERM');
      const killed = await Promise.race([exitedPromise.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
      if (!killed && !exited) {
        process.kill(child.pid, 'SIGKILL');
        await Promise.race([exitedPromise, sleep(STOP_TIMEOUT_MS)]);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const getJson = async (path: string): Promise<unknown> => {
    const res = await fetch(url + path, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return res.json();
  };

  try {
    await waitFor('Prometheus to become ready', START_TIMEOUT_MS, async () => {
      if (exited) throw new Error(`prometheus exited early: ${stderr}`);
      const res = await fetch(url + '/-/ready', { signal: AbortSignal.timeout(2_000) });
      return res.ok ? true : undefined;
    });
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    pid: child.pid!,
    configPath,
    async query(expr) {
      const res = await fetch(url + '/api/v1/query', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query: expr }).toString(),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      return (await res.json()) as PromResult;
    },
    async waitForTargetsUp(timeoutMs) {
      await waitFor('every scrape target to be up', timeoutMs, async () => {
        const body = (await getJson('/api/v1/targets')) as { data: { activeTargets: { health: string }[] } };
        const targets = body.data.activeTargets;
        return targets.length === options.targets.length && targets.every((t) => t.health === 'up') ? true : undefined;
      });
    },
    async rules() {
      const body = (await getJson('/api/v1/rules')) as {
        data: { groups: { rules: { name: string; type: string; health: string; lastError?: string; query: string }[] }[] };
      };
      return body.data.groups.flatMap((g) => g.rules);
    },
    log: () => stderr,
    stop,
  };
}
