// buildApp(config): the Fastify instance with every route in flow order, and the shared context.
// Never listens (main.ts does), so tests can run it on an ephemeral port.
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { messagesCodec } from './codecs/anthropic-messages/index.js';
import { responsesCodec } from './codecs/openai-responses/index.js';
import type { InboundCodec } from './codecs/types.js';
import type { GatewayConfig } from './config/types.js';
import { HttpClient } from './drivers/http-client.js';
import { GatewayError } from './errors.js';
import { registerAuthHook } from './http/auth-hook.js';
import type { AppContext } from './http/context.js';
import { requestIdFor, sendError } from './http/reply-helpers.js';
import { registerGenerationRoutes } from './http/routes/generation-routes.js';
import { registerModelRoutes } from './http/routes/model-routes.js';
import { registerOpsRoutes } from './http/routes/ops-routes.js';
import { registerStoredResponseRoutes } from './http/routes/stored-response-routes.js';
import { registerTokenCountRoutes } from './http/routes/token-count-routes.js';
import { createLogger } from './observability/logger.js';
import { Observability } from './observability/observer.js';
import { ResponsesRepository } from './responses-store/responses-repository.js';
import { createStateStore } from './state/create-state-store.js';
import { AnswerSaver } from './http/answer-saver.js';
import { shareCircuits } from './router/circuit-sync.js';
import { DeploymentHealth } from './router/deployment-health.js';
import { ModelTable } from './router/model-table.js';

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
}

export function buildApp(config: GatewayConfig, options: BuildOptions = {}): BuiltApp {
  const logger = options.logger ?? createLogger(config.logLevel);
  const health = new DeploymentHealth();
  const obs = new Observability({ metricsEnabled: config.metrics.enabled, logger });
  health.onStateChange = (deployment, state) => obs.recordCircuitState(deployment, state);
  const stateStore = createStateStore(config, { onError: (op) => obs.recordStateError(op) });
  const responses = new ResponsesRepository(stateStore, { ttlMs: config.responsesStore.ttlMs, maxBytes: config.responsesStore.maxBytes });
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
    responses,
    saver: new AnswerSaver(responses, logger, obs),
    logger,
    secrets: collectSecrets(config),
    metricsText: options.metricsText ?? (() => obs.metricsText()),
  };
  obs.setSecrets(ctx.secrets);
  obs.setModelLabels(config.models.map((m) => m.name));
  obs.setProviderLabels([...config.providers.keys()]);
  obs.seedCircuitStates(configuredDeployments(config));

  const app = Fastify({
    logger: false,
    bodyLimit: config.server.bodyLimitBytes,
    keepAliveTimeout: 75_000,
    requestTimeout: 0,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const codec = codecForPath(request);
    sendError(reply, codec, fastifyToGatewayError(error), requestIdFor(request));
  });
  app.setNotFoundHandler((request, reply) => {
    const codec = codecForPath(request);
    sendError(reply, codec, new GatewayError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`), requestIdFor(request));
  });

  let ready = false;
  registerAuthHook(app, ctx, codecForPath);
  registerGenerationRoutes(app, ctx);
  registerTokenCountRoutes(app, ctx);
  registerModelRoutes(app, ctx);
  registerOpsRoutes(app, ctx, () => ready);
  registerStoredResponseRoutes(app, ctx);
  app.addHook('onClose', async () => {
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
      obs.seedCircuitStates(configuredDeployments(next));
      ctx.http.retain(next.providers.values());
    },
    setReady(value: boolean) {
      ready = value;
    },
  };
}

function codecForPath(request: FastifyRequest): InboundCodec {
  return request.url.startsWith('/v1/responses') ? responsesCodec : messagesCodec;
}

function fastifyToGatewayError(error: FastifyError): GatewayError {
  if (error instanceof GatewayError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('request_too_large', 'request body is larger than this gateway accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('invalid_request', 'content-type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('invalid_request', 'request body is empty; expected a JSON object');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('invalid_request', 'content-length does not match the body');
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(error.message)) {
    return new GatewayError('invalid_request', `request body is not valid JSON: ${error.message.slice(0, 200)}`);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new GatewayError('invalid_request', error.message);
  return new GatewayError('api_error', 'internal gateway error', { cause: error });
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
