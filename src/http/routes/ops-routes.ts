// Operational endpoints: liveness, readiness, metrics, and a friendly root for HEAD/GET probes.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export function registerOpsRoutes(app: FastifyInstance, ctx: AppContext, isReady: () => boolean): void {
  app.get('/healthz', async (_request, reply) => {
    reply.type('application/json').send('{"status":"ok"}');
  });
  app.get('/readyz', async (_request, reply) => {
    if (isReady()) reply.type('application/json').send('{"status":"ready"}');
    else reply.code(503).type('application/json').send('{"status":"starting"}');
  });
  // With metrics.port set, /metrics lives on its own listener (http/metrics-server.ts), not here:
  // it names every key, team and their spend.
  if (ctx.config.metrics.port === 0) {
    app.get('/metrics', async (_request, reply) => {
      reply.type(ctx.obs.metricsContentType).send(await ctx.metricsText());
    });
  }
  app.route({
    method: ['GET', 'HEAD'],
    url: '/',
    handler: async (_request, reply) => {
      reply.type('application/json').send(
        JSON.stringify({ name: 'switchyard', endpoints: ['POST /v1/messages', 'POST /v1/responses', 'POST /v1/messages/count_tokens', 'POST /v1/responses/input_tokens', 'GET /v1/models'] }),
      );
    },
  });
}
