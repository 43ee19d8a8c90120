// `switchyard serve` (the default command): load the config, build the app, listen, reload on SIGHUP or
// a change of the config file, close gracefully. With --workers N (or SWITCHYARD_WORKERS) a node:cluster
// primary runs N such processes on one port.
import cluster from 'node:cluster';
import { buildApp } from '../app.js';
import { isWorker, runPrimary, STARTUP_FAILED, serveMetricsToPrimary, workerMetricsText } from '../cluster.js';
import { ConfigError, loadConfig } from '../config/load-config.js';
import { createLogger } from '../observability/logger.js';
import { createConfigReloader } from '../config/reload.js';
import { connectStateStore } from '../state/create-state-store.js';
import { workerStatusParts } from '../status/cluster-status.js';
import { drainAndClose, drainBoundMs } from '../http/drain.js';
import { localBackendWarning, memoryClaimsNotice } from '../state/sharing-notice.js';
import { startMetricsServer } from '../http/metrics-server.js';
import { operatorDataExposure } from '../config/operator-access.js';

import { describeListenError } from './listen-error.js';
import { embeddedDefaultNotes } from '../config/default-config.js';
import type { GatewayConfig } from '../config/types.js';

export interface ServeOptions {
  /** --config, or SWITCHYARD_CONFIG; undefined = the embedded default. */
  file: string | undefined;
  /** --workers, or SWITCHYARD_WORKERS, as given. */
  workers: string | undefined;
  env: Record<string, string | undefined>;
}

export async function serveCommand(options: ServeOptions): Promise<void> {
  const { file, env } = options;
  const workers = Number(options.workers ?? 1);
  if (!Number.isInteger(workers) || workers < 1) {
    process.stderr.write(`switchyard: --workers must be a whole number ≥ 1 (got ${JSON.stringify(options.workers)})\n`);
    process.exit(2);
  }
  // Several workers share one store on disk unless told otherwise: continuations work whichever
  // worker a request lands on, with nothing to set up.
  const defaultStateBackend = workers > 1 ? 'file' : 'memory';
  let config;
  try {
    config = loadConfig({ file, env, defaultStateBackend });
  } catch (err) {
    process.stderr.write(`switchyard: ${err instanceof ConfigError ? err.message : String(err)}\n`);
    process.exit(2);
  }
  if (workers > 1 && config.state.backend === 'memory') {
    // Each worker would keep its own windows, leases, budgets and stored responses: every limit N×,
    // and continuations that miss depending on the worker.
    process.stderr.write(
      `switchyard: state.backend: memory cannot be shared by --workers ${workers} (each worker would enforce every limit on its own); use file or redis, or leave state.backend unset (file)\n`,
    );
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  if (cluster.isPrimary && file === undefined) for (const note of embeddedDefaultNotes(env)) logger.info(note);
  if (cluster.isPrimary && config.auth.disabled) logger.warn({ keys: config.auth.disabled }, 'auth entries switched off (disabled: true)');
  // Once per machine (the primary, or the single process).
  if (cluster.isPrimary) for (const exposed of operatorDataExposure(config)) logger.warn(exposed);
  if (workers > 1 && cluster.isPrimary) {
    if (config.auth.open) logger.warn({ host: config.server.host }, 'auth.open: true: the gateway is open to anyone who can reach it');
    runPrimary(workers, logger, drainBoundMs(config.server.drainDelayMs, config.server.shutdownGraceMs), config.metrics, config.server.allowedHosts);
    return;
  }
  const built = buildApp(config, {
    logger,
    metricsText: isWorker() ? workerMetricsText() : undefined,
    workers: isWorker() ? { count: workers, primaryPid: process.ppid } : undefined,
  });
  if (isWorker()) {
    serveMetricsToPrimary(built.ctx.obs.registry);
    built.ctx.status.clusterParts = workerStatusParts(() => built.ctx.status.part());
  } else if (config.auth.open) {
    logger.warn({ host: config.server.host }, 'auth.open: true: the gateway is open to anyone who can reach it');
  }
  try {
    await connectStateStore(built.ctx.stateStore, config, (err) =>
      logger.warn({ backend: config.state.backend, err: err.message }, 'state store unavailable at start-up; starting anyway (state.required: false)'),
    );
  } catch (err) {
    process.stderr.write(`switchyard: ${(err as Error).message}\n`);
    await built.app.close().catch(() => undefined);
    // The primary does not restart a worker that exits this way (it would fail the same way).
    process.exit(STARTUP_FAILED);
  }
  logger.info({ backend: config.state.backend, ...(config.state.backend === 'file' ? { path: config.state.path } : {}) }, 'state store ready');
  if (built.ctx.runtimeKeys !== undefined && config.state.backend === 'memory') {
    logger.warn({ backend: 'memory' }, 'runtime keys (issued through /admin/keys) are kept in memory and die with the process; use state.backend file or redis to keep them');
  }
  try {
    await built.app.listen({ host: config.server.host, port: config.server.port, backlog: config.server.listenBacklog });
  } catch (err) {
    process.stderr.write(`switchyard: ${describeListenError(err, 'server', config.server.host, config.server.port, listenHow(config))}\n`);
    await built.app.close().catch(() => undefined);
    process.exit(STARTUP_FAILED);
  }
  // metrics.port: its own listener (a worker leaves it to the primary, which merges every worker).
  const metricsServer =
    !isWorker() && config.metrics.enabled && config.metrics.port > 0
      ? await startMetricsServer({
          host: config.metrics.host,
          port: config.metrics.port,
          contentType: built.ctx.obs.metricsContentType,
          metricsText: built.ctx.metricsText,
          onError: (err) => logger.warn({ err: err.message }, 'metrics scrape failed'),
          allowedHosts: config.server.allowedHosts,
        }).catch((err: Error) => {
          process.stderr.write(`switchyard: ${describeListenError(err, 'metrics.port', config.metrics.host, config.metrics.port, 'metrics.port in the config')}\n`);
          process.exit(STARTUP_FAILED);
        })
      : undefined;
  if (metricsServer) logger.info({ host: config.metrics.host, port: config.metrics.port }, 'metrics served on their own port (not on the API port)');
  built.setReady(true);
  built.ctx.instances?.start();
  // Reachable from other machines on a per-machine backend: say once what that means (one worker says it).
  const notice = localBackendWarning(config.state.backend, config.server.host);
  if (notice && (cluster.worker?.id ?? 1) === 1) logger.warn({ backend: config.state.backend }, notice);
  const claims = memoryClaimsNotice(config);
  if (claims) logger[claims.level]({ backend: 'memory' }, claims.text);
  const address = built.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.server.port;
  // Where, and why there: SWITCHYARD_HOST/PORT win over the file (config/listen-overrides.ts).
  const from = config.listenFrom ?? { host: 'server.host', port: 'server.port' };
  logger.info(
    { host: config.server.host, port, hostFrom: from.host, portFrom: from.port, config: config.source, providers: [...config.providers.keys()], models: config.models.map((m) => m.name) },
    `switchyard listening on http://${config.server.host}:${port} (host from ${from.host}, port from ${from.port})`,
  );

  // Hot reload (config/reload.ts): validate first, swap atomically, keep the running table on error.
  const reloader = createConfigReloader({
    file,
    env,
    defaultStateBackend,
    apply: (next) => {
      built.reload(next);
      // Said again: a reload may have made the status data or /metrics public (one worker says it).
      if ((cluster.worker?.id ?? 1) === 1) for (const exposed of operatorDataExposure(next)) logger.warn(exposed);
    },
    logger,
    running: config,
    onOutcome: (outcome, why) => built.ctx.status.reloaded({ ok: outcome.status === 'applied', why, error: outcome.status === 'refused' ? outcome.error : undefined }),
  });
  process.on('SIGHUP', () => void reloader.reload('SIGHUP', true));
  reloader.watch();

  // The drain (http/drain.ts): not ready at once, serve on for drain_delay_ms, stop accepting, let running
  // requests finish for shutdown_grace_ms, end what is left with a retryable error, close. The running
  // configuration's numbers apply (a reload may have changed them).
  // SIGINT is a person at a terminal, not a load balancer: no drain delay.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    reloader.close();
    const { shutdownGraceMs } = built.ctx.config.server;
    const drainDelayMs = signal === 'SIGINT' ? 0 : built.ctx.config.server.drainDelayMs;
    const force = setTimeout(() => process.exit(1), drainBoundMs(drainDelayMs, shutdownGraceMs) + 1000);
    force.unref();
    try {
      await drainAndClose(built.app, built.ctx, { drainDelayMs, graceMs: shutdownGraceMs, reason: signal });
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'drain failed');
      process.exit(1);
    }
    // Scrapes keep working through the drain; the metrics listener closes last.
    metricsServer?.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}


/** How to move the API port: the variable when it set the port, the file otherwise. */
function listenHow(config: GatewayConfig): string {
  return config.listenFrom?.port.startsWith('SWITCHYARD_PORT') ? 'SWITCHYARD_PORT' : 'server.port in the config, or SWITCHYARD_PORT';
}
