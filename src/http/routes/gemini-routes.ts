// The Gemini door's routes (gemini.md §13), beside the other doors on the same port:
//   POST /v1beta/models/{model}:generateContent | :streamGenerateContent | :countTokens
//   GET  /v1beta/models, /v1beta/models/{model}
// and the same under /v1/ (GET /v1/models answers Google's shape to Google-looking callers:
// model-routes.ts). The model and the method share one path segment, so one route takes the segment
// and splits it at its last colon. The key may come as `?key=` too (queryKey); URLs are never logged.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { geminiCodec, geminiErrorCodec } from '../../codecs/gemini/index.js';
import { visibleModels } from '../../access/model-access.js';
import { GatewayError, toGatewayError } from '../../errors.js';
import type { AppContext } from '../context.js';
import { handleHttpGeneration } from '../handle-generation.js';
import { requestIdFor, sendError } from '../reply-helpers.js';
import { assertMayUse, identifyCaller, resolveModel } from '../route-preamble.js';
import { handleCount } from './token-count-routes.js';

/** A model segment as Google names models: no slashes, dots only inside (no `..` path tricks). */
const MODEL_SEGMENT = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;
const OPTIONS = { config: { queryKey: true } };

type Method = 'generateContent' | 'streamGenerateContent' | 'countTokens';
const METHODS = new Set<string>(['generateContent', 'streamGenerateContent', 'countTokens']);

interface Target {
  model: string;
  method: Method;
}

/** `gemini-2.5-flash:generateContent` → model and method, or a 400/404 in Google's envelope. */
export function parseTarget(segment: string): Target {
  const colon = segment.lastIndexOf(':');
  if (colon < 0) throw new GatewayError('not_found', `no method in models/${segment.slice(0, 128)}: expected {model}:generateContent, :streamGenerateContent or :countTokens`);
  const model = segment.slice(0, colon);
  const method = segment.slice(colon + 1);
  if (!METHODS.has(method)) throw new GatewayError('not_found', `unknown method "${method.slice(0, 64)}": expected generateContent, streamGenerateContent or countTokens`);
  if (!MODEL_SEGMENT.test(model)) throw new GatewayError('invalid_request', 'model: not a valid model name (letters, digits and . _ @ + - only)', { param: 'model' });
  return { model, method: method as Method };
}

export function registerGeminiRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const version of ['/v1beta', '/v1']) {
    app.post<{ Params: { target: string }; Querystring: { alt?: string } }>(version + '/models/:target', OPTIONS, (request, reply) => {
      let target: Target;
      try {
        target = parseTarget(request.params.target);
      } catch (err) {
        sendError(reply, geminiErrorCodec, toGatewayError(err), requestIdFor(request));
        return;
      }
      switch (target.method) {
        case 'generateContent':
          return handleHttpGeneration(ctx, geminiCodec({ model: target.model }), request, reply);
        case 'streamGenerateContent':
          return handleHttpGeneration(ctx, geminiCodec({ model: target.model, stream: request.query.alt === 'sse' ? 'sse' : 'json-array' }), request, reply);
        case 'countTokens':
          return handleCount(ctx, geminiCodec({ model: target.model }), request, reply);
        default: {
          const never: never = target.method;
          return never;
        }
      }
    });
  }
  app.get('/v1beta/models', OPTIONS, (request, reply) => sendModelList(ctx, request, reply));
  app.get<{ Params: { model: string } }>('/v1beta/models/:model', OPTIONS, (request, reply) => sendModel(ctx, request, reply, request.params.model));
}

/** A Gemini `Model` for an alias the caller may use. */
function modelJson(id: string): Record<string, unknown> {
  return { name: 'models/' + id, baseModelId: id, version: '001', displayName: id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'] };
}

/** `GET …/models`: every alias the caller's allow-lists admit, in one page. */
export async function sendModelList(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const requestId = requestIdFor(request);
  try {
    const caller = identifyCaller(ctx, request);
    const ids = visibleModels(caller, ctx.table.aliases);
    reply.header('x-request-id', requestId).type('application/json').send(JSON.stringify({ models: ids.map(modelJson) }));
  } catch (err) {
    sendError(reply, geminiErrorCodec, toGatewayError(err), requestId);
  }
}

/** `GET …/models/{model}`: a model the caller may use (wildcard routes included), else 404. */
export async function sendModel(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, id: string): Promise<void> {
  const requestId = requestIdFor(request);
  try {
    const caller = identifyCaller(ctx, request);
    const model = id.startsWith('models/') ? id.slice(7) : id;
    resolveModel(ctx, model);
    assertMayUse(caller, model);
    reply.header('x-request-id', requestId).type('application/json').send(JSON.stringify(modelJson(model)));
  } catch (err) {
    sendError(reply, geminiErrorCodec, toGatewayError(err), requestId);
  }
}
