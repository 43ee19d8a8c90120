// GET/DELETE /v1/responses/{id} and GET /v1/responses/{id}/input_items: the stored-response surface
// of the Responses API, served from the gateway's own store (responses-repository.ts). A response
// belongs to the gateway key that created it; any other key gets the same 404 as an unknown id.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { responsesCodec } from '../../codecs/openai-responses/index.js';
import { GatewayError, toGatewayError } from '../../errors.js';
import { UnknownCursorError, type ListInputItemsParams } from '../../responses-store/responses-repository.js';
import { StateUnavailableError } from '../../state/types.js';
import { identifyCaller } from '../route-preamble.js';
import type { AppContext } from '../context.js';
import { requestIdFor, sendError } from '../reply-helpers.js';
import { stateUnavailable } from '../state-unavailable.js';

type IdRequest = FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | string[] | undefined> }>;

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `Response with id '${id}' not found.`);
}

function ownerOf(ctx: AppContext, request: FastifyRequest): string {
  return identifyCaller(ctx, request).name;
}

function single(query: IdRequest['query'], name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) throw new GatewayError('invalid_request', `${name}: give it once`, { param: name });
  return v;
}

function listParams(query: IdRequest['query']): ListInputItemsParams {
  const out: ListInputItemsParams = {};
  const limit = single(query, 'limit');
  if (limit !== undefined) {
    const n = Number(limit);
    if (!/^\d+$/.test(limit) || n < 1 || n > 100) {
      throw new GatewayError('invalid_request', `limit: must be an integer from 1 to 100, got '${limit.slice(0, 40)}'`, { param: 'limit' });
    }
    out.limit = n;
  }
  const order = single(query, 'order');
  if (order !== undefined) {
    if (order !== 'asc' && order !== 'desc') {
      throw new GatewayError('invalid_request', `order: must be 'asc' or 'desc', got '${order.slice(0, 40)}'`, { param: 'order' });
    }
    out.order = order;
  }
  const after = single(query, 'after');
  if (after !== undefined) out.after = after;
  const before = single(query, 'before');
  if (before !== undefined) out.before = before;
  return out;
}

function sendJson(reply: FastifyReply, requestId: string, body: unknown): void {
  reply.header('x-request-id', requestId).type('application/json').send(JSON.stringify(body));
}

function failure(ctx: AppContext, err: unknown): GatewayError {
  if (err instanceof StateUnavailableError) return stateUnavailable(ctx, err, `${err.op === 'delete' ? 'delete' : 'read'} stored responses`);
  if (err instanceof UnknownCursorError) return new GatewayError('invalid_request', err.message, { param: err.param });
  return toGatewayError(err);
}

export function registerStoredResponseRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/v1/responses/:id', async (request: IdRequest, reply) => {
    const requestId = requestIdFor(request);
    try {
      const owner = ownerOf(ctx, request);
      const stream = single(request.query, 'stream');
      if (stream === 'true') {
        throw new GatewayError('invalid_request', 'stream: replaying a stored response as events is not supported by this gateway', { param: 'stream' });
      }
      const record = await ctx.responses.load(request.params.id, owner);
      if (!record) throw notFound(request.params.id);
      sendJson(reply, requestId, record.response);
    } catch (err) {
      sendError(reply, responsesCodec, failure(ctx, err), requestId);
    }
  });

  app.delete('/v1/responses/:id', async (request: IdRequest, reply) => {
    const requestId = requestIdFor(request);
    try {
      const owner = ownerOf(ctx, request);
      const id = request.params.id;
      if (!(await ctx.responses.delete(id, owner))) throw notFound(id);
      sendJson(reply, requestId, { id, object: 'response.deleted', deleted: true });
    } catch (err) {
      sendError(reply, responsesCodec, failure(ctx, err), requestId);
    }
  });

  app.get('/v1/responses/:id/input_items', async (request: IdRequest, reply) => {
    const requestId = requestIdFor(request);
    try {
      const owner = ownerOf(ctx, request);
      const params = listParams(request.query);
      const page = await ctx.responses.listInputItems(request.params.id, owner, params);
      if (!page) throw notFound(request.params.id);
      sendJson(reply, requestId, page);
    } catch (err) {
      sendError(reply, responsesCodec, failure(ctx, err), requestId);
    }
  });
}
