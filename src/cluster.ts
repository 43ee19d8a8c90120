// --workers N: node:cluster workers share the listening port. Each worker keeps its own metrics
// registry; /metrics on any worker asks the primary, which merges every worker's registry (prom-client's
// AggregatorRegistry), so a scrape sees the whole process group. The primary restarts crashed workers
// and forwards SIGHUP (reload) and SIGTERM/SIGINT: every worker drains at once (http/drain.ts: /readyz
// 503, serve on for drain_delay_ms, stop accepting, finish or cut), none is restarted meanwhile, and the
// primary exits when the last one has, or at the drain's bound.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { GatewayConfig } from './config/types.js';
import { startMetricsServer } from './http/metrics-server.js';
import { clusterMetrics, serveWorkerMetrics } from './observability/cluster-metrics.js';
import { statusBroker } from './status/cluster-status.js';

const ASK = 'switchyard:metrics?';
/** A worker's exit code when its start-up failed for good (main.ts). */
export const STARTUP_FAILED = 3;
const ANSWER = 'switchyard:metrics!';

interface MetricsMessage {
  type: string;
  id: number;
  text?: string;
  error?: string;
}

/** `graceMs`: the longest a worker's drain may take (drainBoundMs). */
export function runPrimary(workers: number, logger: Logger, graceMs: number, metricsConfig?: GatewayConfig['metrics'], allowedHosts: readonly string[] = []): void {
  const metrics = clusterMetrics();
  const status = statusBroker();
  // metrics.port: the primary serves the merged view itself (workers no longer route /metrics).
  if (metricsConfig && metricsConfig.enabled && metricsConfig.port > 0) {
    startMetricsServer({
      host: metricsConfig.host,
      port: metricsConfig.port,
      contentType: metrics.contentType,
      metricsText: () => metrics.metricsText(),
      onError: (err) => logger.warn({ err: err.message }, 'metrics scrape failed'),
      allowedHosts,
    }).then(
      () => logger.info({ host: metricsConfig.host, port: metricsConfig.port }, 'metrics served on their own port (not on the API port)'),
      (err: Error) => {
        logger.error({ port: metricsConfig.port, err: err.message }, 'metrics.port cannot be bound; stopping');
        process.stderr.write(`switchyard: metrics.port ${metricsConfig.port}: ${err.message}\n`);
        shutdown('SIGTERM');
      },
    );
  }
  let closing = false;
  let exitCode = 0;
  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on('message', (msg: MetricsMessage) => {
      if (msg?.type !== ASK) return;
      metrics.metricsText().then(
        (text) => worker.send({ type: ANSWER, id: msg.id, text }),
        (err: Error) => worker.send({ type: ANSWER, id: msg.id, error: err.message }),
      );
    });
    status.attach(worker);
    return worker;
  };
  for (let i = 0; i < workers; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (closing) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    if (code === STARTUP_FAILED) {
      // Its start-up cannot succeed (e.g. the state store is unreachable): another would fail the same way.
      closing = true;
      exitCode = STARTUP_FAILED;
      logger.error({ pid: worker.process.pid, code }, 'worker could not start; stopping');
      each((w) => w.process.kill('SIGTERM'));
      setTimeout(() => process.exit(exitCode), graceMs + 1000).unref();
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'worker exited; starting another');
    fork();
  });
  const each = (fn: (w: Worker) => void) => {
    for (const w of Object.values(cluster.workers ?? {})) if (w) fn(w);
  };
  process.on('SIGHUP', () => each((w) => w.process.kill('SIGHUP')));
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.info({ signal, workers }, 'drain: shutting down workers (each drains)');
    // The same signal: SIGTERM drains with the delay, SIGINT (a terminal) without.
    each((w) => w.process.kill(signal));
    setTimeout(() => process.exit(exitCode || 1), graceMs + 1000).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  logger.info({ workers }, `switchyard primary started ${workers} workers`);
}

/** In a worker: the /metrics source that asks the primary for the merged view. */
export function workerMetricsText(): () => Promise<string> {
  let next = 0;
  const pending = new Map<number, { resolve: (t: string) => void; reject: (e: Error) => void }>();
  process.on('message', (msg: MetricsMessage) => {
    if (msg?.type !== ANSWER) return;
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.text !== undefined) p.resolve(msg.text);
    else p.reject(new Error(msg.error ?? 'metrics unavailable'));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      process.send!({ type: ASK, id });
      setTimeout(() => {
        if (pending.delete(id)) reject(new Error('metrics aggregation timed out'));
      }, 10_000).unref();
    });
}

/** In a worker, once its app is built: answer the primary's aggregation requests. */
export function serveMetricsToPrimary(registry: Registry | undefined): void {
  if (registry) serveWorkerMetrics(registry);
}

export const isWorker = (): boolean => cluster.isWorker;
