// GET /v1/models and /v1/models/{id}: the configured aliases, in Anthropic's list shape when the
// caller looks like an Anthropic client (anthropic-version / vendor-version / x-api-key), in Google's when
// it looks like a Google one (x-goog-api-key, x-goog-api-client, ?key=: gemini-routes.ts), else OpenAI's.
// A key sees only the models its allow-lists (key and team) admit; another model is "not found".
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { messagesCodec } from '../../codecs/anthropic-messages/index.js';
import { responsesCodec } from '../../codecs/openai-responses/index.js';
import { visibleModels } from '../../access/model-access.js';
import { toGatewayError } from '../../errors.js';
import type { AppContext } from '../context.js';
import { queryKeyOf } from '../auth-hook.js';
import { sendModel, sendModelList } from './gemini-routes.js';
import { requestIdFor, sendError } from '../reply-helpers.js';
import { assertMayUse, identifyCaller, resolveModel } from '../route-preamble.js';

const CREATED = '2025-01-01T00:00:00Z';
const CREATED_UNIX = 1735689600;

/** Whether the caller looks like an Anthropic client (errors and lists in its shape). */
export function isAnthropicCaller(request: FastifyRequest): boolean {
  const h = request.headers;
  return h['anthropic-version'] !== undefined || h['vendor-version'] !== undefined || h['x-api-key'] !== undefined;
}

function anthropicModel(id: string) {
  return { type: 'model', id, display_name: id, created_at: CREATED };
}

function openaiModel(id: string, owner: string) {
  return { id, object: 'model', created: CREATED_UNIX, owned_by: owner };
}

/** Whether the caller looks like a Google client (the Gemini door's list and errors). */
function isGoogleCaller(request: FastifyRequest): boolean {
  const h = request.headers;
  return h['x-goog-api-key'] !== undefined || h['x-goog-api-client'] !== undefined || queryKeyOf(request) !== undefined;
}

export function registerModelRoutes(app: FastifyInstance, ctx: AppContext): void {
  const options = { config: { queryKey: true } };
  app.get('/v1/models', options, async (request, reply) => {
    if (isGoogleCaller(request)) return sendModelList(ctx, request, reply);
    const anthropic = isAnthropicCaller(request);
    const codec = anthropic ? messagesCodec : responsesCodec;
    const requestId = requestIdFor(request);
    try {
      const caller = identifyCaller(ctx, request);
      const ids = visibleModels(caller, ctx.table.aliases);
      const body = anthropic
        ? { data: ids.map(anthropicModel), has_more: false, first_id: ids[0] ?? null, last_id: ids[ids.length - 1] ?? null }
        : { object: 'list', data: ids.map((id) => openaiModel(id, ownerOf(ctx, id))) };
      reply.header(codec.requestIdHeader, requestId).type('application/json').send(JSON.stringify(body));
    } catch (err) {
      sendError(reply, codec, toGatewayError(err), requestId);
    }
  });

  app.get<{ Params: { id: string } }>('/v1/models/:id', options, async (request, reply) => {
    if (isGoogleCaller(request)) return sendModel(ctx, request, reply, request.params.id);
    const anthropic = isAnthropicCaller(request);
    const codec = anthropic ? messagesCodec : responsesCodec;
    const requestId = requestIdFor(request);
    try {
      const caller = identifyCaller(ctx, request);
      const id = request.params.id;
      resolveModel(ctx, id);
      assertMayUse(caller, id);
      const body = anthropic ? anthropicModel(id) : openaiModel(id, ownerOf(ctx, id));
      reply.header(codec.requestIdHeader, requestId).type('application/json').send(JSON.stringify(body));
    } catch (err) {
      sendError(reply, codec, toGatewayError(err), requestId);
    }
  });
}

function ownerOf(ctx: AppContext, id: string): string {
  return ctx.table.resolve(id)?.targets[0]?.provider.name ?? 'switchyard';
}
