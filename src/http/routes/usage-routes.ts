// Spend and limits as the state store holds them: `GET /v1/usage` for the calling key (its limits
// with what is left in the current windows, its spend and its team's in the current periods) and
// `GET /admin/usage` for `auth.admin_keys` (every key, every team, spend per model this month).
// Errors in the Anthropic envelope for Anthropic-looking callers, else OpenAI's (as /v1/models).
import { stateUnavailable } from '../state-unavailable.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { messagesCodec } from '../../codecs/anthropic-messages/index.js';
import { responsesCodec } from '../../codecs/openai-responses/index.js';
import { GatewayError, toGatewayError } from '../../errors.js';
import { StateUnavailableError } from '../../state/types.js';
import type { AppContext } from '../context.js';
import { requestIdFor, sendError } from '../reply-helpers.js';
import { identifyCaller } from '../route-preamble.js';
import { isAnthropicCaller } from './model-routes.js';

export function registerUsageRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/v1/usage', (request, reply) =>
    answer(ctx, request, reply, () => {
      const caller = identifyCaller(ctx, request);
      if (caller.admin) throw new GatewayError('permission', 'admin keys have no usage of their own; GET /admin/usage lists every key and team');
      return ctx.access.usageView(caller);
    }),
  );
  app.get('/admin/usage', (request, reply) =>
    answer(ctx, request, reply, () => {
      if (!identifyCaller(ctx, request).admin) throw new GatewayError('permission', 'GET /admin/usage needs a key from auth.admin_keys');
      return ctx.access.adminView();
    }),
  );
}

async function answer(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, view: () => Promise<unknown>): Promise<void> {
  const codec = isAnthropicCaller(request) ? messagesCodec : responsesCodec;
  const requestId = requestIdFor(request);
  try {
    const body = await view();
    reply.header(codec.requestIdHeader, requestId).header('cache-control', 'no-store').type('application/json').send(JSON.stringify(body));
  } catch (err) {
    const gerr = err instanceof StateUnavailableError ? stateUnavailable(ctx, err, 'read usage') : toGatewayError(err);
    if (!(err instanceof GatewayError)) ctx.logger.warn({ requestId, err: ctx.obs.safeError(err) }, 'usage view failed');
    sendError(reply, codec, gerr, requestId);
  }
}
