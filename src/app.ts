// buildApp(config): the Fastify instance with every route in flow order, and the shared context.
// Never listens (main.ts does), so tests can run it on an ephemeral port.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { AccessService } from './access/access-service.js';
import { KeyAdmin } from './access/key-admin.js';
import { RuntimeKeys } from './access/runtime-keys.js';
import type { GatewayConfig } from './config/types.js';
import { HttpClient } from './drivers/http-client.js';
import { GatewayError } from './errors.js';
import { AnswerSaver } from './http/answer-saver.js';
import { InFlight } from './http/in-flight.js';
import { registerAuthHook } from './http/auth-hook.js';
import { registerAuthRefusalCount } from './http/auth-refusals.js';
import type { AppContext } from './http/context.js';
import { codecForPath, frameworkErrorOptions, installFrameworkErrorHandling } from './http/framework-errors.js';
import { requestIdFor, sendError } from './http/reply-helpers.js';
import { registerAdminKeyRoutes } from './http/routes/admin-key-routes.js';
import { registerGenerationRoutes } from './http/routes/generation-routes.js';
import { registerGeminiRoutes } from './http/routes/gemini-routes.js';
import { registerModelRoutes } from './http/routes/model-routes.js';
import { registerOpsRoutes } from './http/routes/ops-routes.js';
import { registerSocketRoutes } from './http/routes/socket-routes.js';
import { registerStatusRoutes } from './http/routes/status-routes.js';
import { registerStoredResponseRoutes } from './http/routes/stored-response-routes.js';
import { registerTokenCountRoutes } from './http/routes/token-count-routes.js';
import { registerUsageRoutes } from './http/routes/usage-routes.js';
import { createLogger } from './observability/logger.js';
import { Observability } from './observability/observer.js';
import { ResponsesRepository } from './responses-store/responses-repository.js';
import { createStateStore } from './state/create-state-store.js';
import { InstanceRegistry } from './state/instance-registry.js';
import { sharedNotice } from './state/sharing-notice.js';
import { shareCircuits } from './router/circuit-sync.js';
import { DeploymentHealth } from './router/deployment-health.js';
import { ModelTable } from './router/model-table.js';
import { packageVersion } from './status/package-root.js';
import { StatusService } from './status/status-service.js';

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** Swap in a new configuration (hot reload): in-flight requests finish on the old one. */
  reload(config: GatewayConfig): void;
  /** Mark the app ready (after listen). */
  setReady(ready: boolean): void;
}

export interface BuildOptions {
  logger?: Logger;
  /** Replaces the /metrics source (the cluster primary's merged view in --workers mode). */
  metricsText?: () => Promise<string>;
  /** --workers: the process count and the primary's pid (instance id on Redis). */
  workers?: { count: number; primaryPid: number };
}

export function buildApp(config: GatewayConfig, options: BuildOptions = {}): BuiltApp {
  const logger = options.logger ?? createLogger(config.logLevel);
  const health = new DeploymentHealth();
  const obs = new Observability({ metricsEnabled: config.metrics.enabled, logger });
  health.onStateChange = (deployment, state) => obs.recordCircuitState(deployment, state);
  const stateStore = createStateStore(config, { onError: (op) => obs.recordStateError(op) });
  // Keys issued through the admin API: polled from the store (access/runtime-keys.ts). The switch
  // is read at start-up (a reload cannot add the poller).
  const runtimeSettings = config.auth.runtimeKeys ?? { enabled: config.auth.adminKeys.length > 0, maxStalenessMs: undefined };
  const runtimeKeys = runtimeSettings.enabled
    ? new RuntimeKeys(stateStore, {
        maxStalenessMs: runtimeSettings.maxStalenessMs,
        onPollError: throttled(5_000, (err) => logger.warn({ err: obs.safeError(err) }, 'runtime keys not refreshed (state store unavailable)')),
        onBadRecord: (id) => logger.warn({ record: id }, 'runtime key record unreadable; skipped'),
      })
    : undefined;
  // The access service reads ctx.config on every call, so a reload's keys, limits and prices apply
  // to the next request without rebuilding it.
  const access = new AccessService(stateStore, {
    config: () => ctx.config,
    runtimeKeys,
    releaseRetry: {
      onRetry: (attempt, err) => logger.warn({ attempt, err: obs.safeError(err) }, 'concurrency lease release failed again; retrying'),
      onReleased: (attempt) => logger.info({ attempt }, 'concurrency leases released after a failed settle'),
      onGiveUp: (err) => logger.error({ err: obs.safeError(err) }, 'concurrency leases not released; they expire at their TTL'),
    },
  });
  const { ttlMs, maxBytes, claimTtlMs } = config.responsesStore;
  const responses = new ResponsesRepository(stateStore, { ttlMs, maxBytes, claimTtlMs });
  // One process has nothing to share; workers and instances on a shared backend skip a failing
  // deployment together.
  const unshare =
    stateStore.backend === 'memory'
      ? undefined
      : shareCircuits(health, stateStore, (err) => logger.warn({ err: obs.safeError(err) }, 'circuit state not shared'));
  const ctx: AppContext = {
    config,
    table: new ModelTable(config, health),
    health,
    http: new HttpClient(),
    obs,
    stateStore,
    access,
    responses,
    runtimeKeys,
    keyAdmin: runtimeKeys === undefined ? undefined : new KeyAdmin(stateStore, runtimeKeys, () => ctx.config, logger),
    saver: new AnswerSaver(responses, logger, obs),
    logger,
    secrets: collectSecrets(config),
    metricsText: options.metricsText ?? (() => obs.metricsText()),
    status: undefined as unknown as StatusService,
    draining: false,
    inFlight: new InFlight(),
    sockets: new Set(),
    instances: stateStore.backend === 'redis' ? instanceRegistry(stateStore, obs, logger) : undefined,
  };
  ctx.status = new StatusService({
    config: () => ctx.config,
    health,
    stateStore,
    access,
    draining: () => ctx.draining,
    redact: (text) => obs.redact(text),
  });
  if (options.workers) {
    ctx.status.workers = options.workers.count;
    ctx.status.primaryPid = options.workers.primaryPid;
  }
  // The windows cost a few array writes per request: kept only when the page can be shown.
  if (config.status.enabled) obs.setTap(ctx.status.collector);
  ctx.status.instances = ctx.instances;
  obs.setSecrets(ctx.secrets);
  obs.setModelLabels(config.models.map((m) => m.name));
  obs.setProviderLabels([...config.providers.keys()]);
  setAccessLabels(obs, config);
  obs.seedCircuitStates(configuredDeployments(config));

  const app = Fastify({
    logger: false,
    bodyLimit: config.server.bodyLimitBytes,
    keepAliveTimeout: 75_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...frameworkErrorOptions,
  });

  // Every error answer is masked like a log line (reply-helpers.ts sendError); obs follows reloads.
  app.decorate('maskSecrets', (text: string) => obs.redact(text));
  installFrameworkErrorHandling(app, (err, request) =>
    logger.error({ err: obs.safeError(err), method: request.method, path: request.url.split('?')[0]!.slice(0, 200), requestId: requestIdFor(request) }, 'internal error; answered 500'),
  );
  app.setNotFoundHandler((request, reply) => {
    const codec = codecForPath(request);
    sendError(reply, codec, new GatewayError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`), requestIdFor(request));
  });

  let ready = false;
  registerAuthHook(app, ctx, codecForPath);
  registerAuthRefusalCount(app, ctx);
  registerGenerationRoutes(app, ctx);
  registerGeminiRoutes(app, ctx);
  registerSocketRoutes(app, ctx);
  registerTokenCountRoutes(app, ctx);
  registerModelRoutes(app, ctx);
  registerOpsRoutes(app, ctx, () => ready);
  registerStoredResponseRoutes(app, ctx);
  registerUsageRoutes(app, ctx);
  registerAdminKeyRoutes(app, ctx);
  registerStatusRoutes(app, ctx);
  // The first read is not waited for here (a store that is away must not hold start-up); until it
  // lands, runtime keys answer 503 and config keys work.
  void runtimeKeys?.start();
  app.addHook('onClose', async () => {
    runtimeKeys?.stop();
    await ctx.instances?.stop();
    await ctx.http.close();
    unshare?.();
    await ctx.stateStore.close();
  });

  return {
    app,
    ctx,
    reload(next: GatewayConfig) {
      // Build everything first, then swap in one synchronous step: a request reads ctx.table once
      // (its plan keeps the old providers), so in-flight requests finish on the table they started with.
      const table = new ModelTable(next, health);
      const secrets = collectSecrets(next);
      ctx.config = next;
      ctx.table = table;
      ctx.secrets = secrets;
      obs.setSecrets(secrets);
      obs.setModelLabels(next.models.map((m) => m.name));
      obs.setProviderLabels([...next.providers.keys()]);
      setAccessLabels(obs, next);
      obs.seedCircuitStates(configuredDeployments(next));
      obs.setTap(next.status.enabled ? ctx.status.collector : undefined);
      ctx.http.retain(next.providers.values());
      // An open WebSocket whose key this reload revoked is told so and closed (socket-session.ts).
      for (const socket of ctx.sockets) socket.recheckKey();
    },
    setReady(value: boolean) {
      ready = value;
    },
  };
}

/** `fn` at most once per `ms` (a store outage fails every poll: one line per interval, not four a second). */
function throttled<T>(ms: number, fn: (x: T) => void): (x: T) => void {
  let last = -Infinity;
  return (x) => {
    const now = Date.now();
    if (now - last < ms) return;
    last = now;
    fn(x);
  };
}

/** The instances on a shared Redis: counted in a gauge; the first sighting of another is logged once. */
function instanceRegistry(store: ReturnType<typeof createStateStore>, obs: Observability, logger: Logger): InstanceRegistry {
  let told = false;
  return new InstanceRegistry(store, {
    version: packageVersion(),
    onCount(count) {
      obs.setInstances(count);
      if (count > 1 && !told) {
        told = true;
        logger.info({ instances: count }, sharedNotice(count));
      }
    },
    onError: (err) => logger.warn({ err: obs.safeError(err) }, 'instance heartbeat not published'),
  });
}

/** Key and team names bound the key/team labels; configured budgets feed the budget gauge. */
function setAccessLabels(obs: Observability, config: GatewayConfig): void {
  const budgets: { scope: 'key' | 'team'; owner: string; usd: number }[] = [];
  for (const k of config.authKeys) if (k.budget !== undefined) budgets.push({ scope: 'key', owner: k.name, usd: k.budget.usd });
  for (const t of config.auth.teams.values()) if (t.budget !== undefined) budgets.push({ scope: 'team', owner: t.name, usd: t.budget.usd });
  obs.setAccess(
    config.authKeys.map((k) => k.name),
    [...config.auth.teams.keys(), ...config.authKeys.flatMap((k) => (k.team === undefined ? [] : [k.team]))],
    budgets,
  );
}

function collectSecrets(config: GatewayConfig): string[] {
  const out: string[] = [];
  for (const k of [...config.authKeys, ...config.auth.adminKeys]) if (k.key !== undefined) out.push(k.key);
  for (const p of config.providers.values()) out.push(...p.apiKeys);
  return out.filter((s) => s.length >= 4);
}

/** "<provider>/<upstream model>" of every target with a fixed upstream model (wildcards have none yet). */
function configuredDeployments(config: GatewayConfig): string[] {
  const out = new Set<string>();
  for (const m of config.models) for (const t of m.targets) if (t.model !== undefined) out.add(t.provider + '/' + t.model);
  return [...out];
}
