// Token counting beside the front doors: Anthropic `POST /v1/messages/count_tokens` (Claude Code calls
// it constantly) and OpenAI `POST /v1/responses/input_tokens`. The upstream's own counter is used when
// the model's first deployment has one; otherwise a labelled estimate that errs high. Never 404s for a
// configured model, and never trips a deployment's circuit breaker.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeCountTokensRequest, messagesCodec } from '../../codecs/anthropic-messages/index.js';
import { responsesCodec } from '../../codecs/openai-responses/index.js';
import type { InboundCodec } from '../../codecs/types.js';
import { estimateInputTokens } from '../../drivers/demo/demo-reply.js';
import { readText } from '../../drivers/http-client.js';
import { driverFor, driverTarget } from '../../drivers/registry.js';
import { GatewayError, toGatewayError } from '../../errors.js';
import type { IrRequest, Warning } from '../../ir/types.js';
import { RequestRecord } from '../../observability/request-record.js';
import type { RouteTarget } from '../../router/model-table.js';
import { authenticate } from '../auth.js';
import type { AppContext } from '../context.js';
import { requestIdFor, sendError } from '../reply-helpers.js';

export function registerTokenCountRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/messages/count_tokens', (request, reply) => handleCount(ctx, messagesCodec, request, reply));
  app.post('/v1/responses/input_tokens', (request, reply) => handleCount(ctx, responsesCodec, request, reply));
}

async function handleCount(ctx: AppContext, codec: InboundCodec, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const requestId = requestIdFor(request);
  const rec = new RequestRecord(requestId, codec.protocol === 'messages' ? 'count_tokens' : 'input_tokens', performance.now());
  ctx.obs.requestStarted(rec);
  try {
    authenticate(ctx.config.authKeys, request.headers);
    const warnings: Warning[] = [];
    const body = request.body as Record<string, unknown>;
    const ir = codec.protocol === 'messages' ? decodeCountTokensRequest(body, warnings) : codec.decodeRequest(body, warnings);
    rec.requestedModel = ir.model;
    const plan = ctx.table.resolve(ir.model);
    if (!plan) throw new GatewayError('not_found', `model "${ir.model}" is not configured on this gateway`, { param: 'model', code: 'model_not_found' });
    rec.modelLabel = plan.label;
    const target = plan.targets[0]!;
    rec.provider = target.provider.name;
    rec.upstreamProtocol = target.provider.protocol;
    let count: number | undefined;
    let source = 'estimate';
    if (target.provider.protocol !== 'demo' && target.provider.protocol !== 'chat') {
      rec.lane = target.provider.protocol === codec.protocol ? 'passthrough' : 'translation';
      count = await upstreamCount(ctx, codec, body, ir, target, request);
      if (count !== undefined) source = 'upstream';
    } else {
      rec.lane = 'local';
    }
    count ??= estimateInputTokens(ir);
    rec.status = 200;
    const payload = codec.protocol === 'messages' ? { input_tokens: count } : { object: 'response.input_tokens', input_tokens: count };
    reply
      .code(200)
      .header(codec.protocol === 'messages' ? 'request-id' : 'x-request-id', requestId)
      .header('x-switchyard-token-count', source)
      .type('application/json')
      .send(JSON.stringify(payload));
  } catch (err) {
    const gerr = toGatewayError(err);
    rec.errorKind = gerr.kind;
    rec.status = sendError(reply, codec, gerr, requestId);
  } finally {
    rec.tEnd = performance.now();
    ctx.obs.requestFinished(rec);
  }
}

/** The upstream's count, or undefined when it cannot give one (then we estimate). A 4xx about the
 * request itself is the caller's answer and is thrown. */
async function upstreamCount(
  ctx: AppContext,
  codec: InboundCodec,
  body: Record<string, unknown>,
  ir: IrRequest,
  target: RouteTarget,
  request: FastifyRequest,
): Promise<number | undefined> {
  const provider = target.provider;
  const protocol = provider.protocol as 'messages' | 'responses';
  const driver = driverFor(protocol);
  let payload: Record<string, unknown>;
  let headers: Record<string, string>;
  if (protocol === codec.protocol) {
    payload = { ...body, model: target.model };
    const enc = driver.encodeRequest({ ...ir, maxOutputTokens: ir.maxOutputTokens ?? 1 }, driverTarget(provider, target.model), false, []);
    headers = enc.headers;
    const beta = request.headers['anthropic-beta'];
    if (protocol === 'messages' && beta) headers = { ...headers, 'anthropic-beta': Array.isArray(beta) ? beta.join(',') : beta };
  } else {
    const enc = driver.encodeRequest({ ...ir, maxOutputTokens: ir.maxOutputTokens ?? 1, stream: false }, driverTarget(provider, target.model), false, []);
    payload = JSON.parse(enc.body) as Record<string, unknown>;
    headers = enc.headers;
  }
  // Fields the counting endpoints reject.
  for (const k of ['stream', 'max_tokens', 'max_output_tokens', 'store', 'include', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'metadata', 'stream_options', 'service_tier'])
    delete payload[k];
  const path = protocol === 'messages' ? '/v1/messages/count_tokens' : '/responses/input_tokens';
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), Math.min(provider.timeouts.firstByteMs, 30_000));
  try {
    const res = await ctx.http.send(provider, { path, headers, body: JSON.stringify(payload), signal: abort.signal });
    const text = await readText(res.body, 1024 * 1024);
    if (res.status === 200) {
      const n = (JSON.parse(text) as { input_tokens?: unknown }).input_tokens;
      return typeof n === 'number' ? n : undefined;
    }
    const err = driver.decodeError(res.status, res.headers, text);
    if (protocol === codec.protocol && (err.kind === 'invalid_request' || err.kind === 'context_overflow')) throw err;
    return undefined;
  } catch (err) {
    if (err instanceof GatewayError && (err.kind === 'invalid_request' || err.kind === 'context_overflow')) throw err;
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
