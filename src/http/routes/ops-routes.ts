// Operational endpoints: liveness, readiness, metrics, and a friendly root for HEAD/GET probes.
// Probes never call an upstream (a probe every 500 ms must not cost a model call).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { operatorDataRefusal } from '../operator-access.js';
import { StoreProbe } from '../store-probe.js';

const LIVE = '{"status":"ok"}';

/** What `GET /` names: every front door and the routes a newcomer looks for (README "Endpoints"). */
const ROOT_ENDPOINTS = [
  'POST /v1/messages',
  'POST /v1/messages/count_tokens',
  'POST /v1/responses',
  'POST /v1/responses/input_tokens',
  'POST /v1/chat/completions',
  'POST /v1beta/models/{model}:generateContent',
  'POST /v1beta/models/{model}:streamGenerateContent',
  'POST /v1beta/models/{model}:countTokens',
  'GET /v1/models',
  'GET /v1/usage',
];

export function registerOpsRoutes(app: FastifyInstance, ctx: AppContext, isReady: () => boolean): void {
  // /livez: the process answers. /healthz is its older name, kept as an alias.
  const live = async (_request: unknown, reply: FastifyReply) => {
    reply.type('application/json').send(LIVE);
  };
  app.get('/livez', live);
  app.get('/healthz', live);

  // /readyz: 200 only when the config is loaded and the app listening, the instance is not draining, and
  // (when the backend is shared and required) the state store answers. Its body says which is missing.
  const probe = new StoreProbe(ctx.stateStore, ctx.config.state.opTimeoutMs);
  app.get('/readyz', async (_request, reply) => {
    if (!isReady()) return void reply.code(503).type('application/json').send('{"status":"starting"}');
    if (ctx.draining) return void reply.code(503).type('application/json').send('{"status":"draining"}');
    const state = ctx.config.state;
    if (state.backend === 'memory') return void reply.type('application/json').send('{"status":"ready","state":{"backend":"memory","reachable":true}}');
    const health = await probe.check();
    // With state.required: false the instance serves without its store (stateful requests get 503), so it stays ready.
    const ok = health.reachable || !state.required;
    // Redis: how many gateway processes share the store (state/instance-registry.ts). Only the count:
    // /readyz needs no key, and hostnames and pids map the fleet; /status.json lists them for an admin key.
    const instances = ctx.instances?.list().length;
    reply
      .code(ok ? 200 : 503)
      .type('application/json')
      .send(JSON.stringify({ status: ok ? 'ready' : 'state_unavailable', state: { backend: state.backend, ...health }, ...(instances !== undefined ? { instances } : {}) }));
  });
  // With metrics.port set, /metrics lives on its own listener (http/metrics-server.ts), not here:
  // it names every key, team and their spend.
  if (ctx.config.metrics.port === 0) {
    app.get('/metrics', async (request, reply) => {
      // Checked before the scrape (under --workers it asks every worker).
      const refused = operatorDataRefusal(ctx.config, request.headers, 'metrics');
      if (refused) {
        reply.code(refused.status).type('application/json').send(JSON.stringify({ error: { type: refused.type, message: refused.message } }));
        return;
      }
      reply.type(ctx.obs.metricsContentType).send(await ctx.metricsText());
    });
  }
  app.route({
    method: ['GET', 'HEAD'],
    url: '/',
    handler: async (_request, reply) => {
      reply.type('application/json').send(
        JSON.stringify({ name: 'switchyard', endpoints: ROOT_ENDPOINTS }),
      );
    },
  });
}
