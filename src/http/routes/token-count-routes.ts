// Token counting beside the front doors: Anthropic `POST /v1/messages/count_tokens` (Claude Code calls
// it constantly) and OpenAI `POST /v1/responses/input_tokens`. The upstream's own counter is used when
// the model's first deployment has one; otherwise a labelled estimate that errs high. Never 404s for a
// configured model, and never trips a deployment's circuit breaker.
import { StateUnavailableError } from '../../state/types.js';
import { stateUnavailable } from '../state-unavailable.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { messagesCodec } from '../../codecs/anthropic-messages/index.js';
import { responsesCodec } from '../../codecs/openai-responses/index.js';
import type { CountingCodec } from '../../codecs/types.js';
import { estimateInputTokens } from '../../ir/estimate-tokens.js';
import { readText } from '../../drivers/http-client.js';
import { driverFor } from '../../drivers/registry.js';
import type { Driver, EncodedRequest } from '../../drivers/types.js';
import { GatewayError, toGatewayError } from '../../errors.js';
import { platformError, platformRequest } from '../../platforms/send.js';
import type { IrRequest, Protocol } from '../../ir/types.js';
import { RequestRecord } from '../../observability/request-record.js';
import { assertTargetTakesMediaUrls } from '../lanes/media-url-check.js';
import { driverTarget } from '../../router/driver-target.js';
import type { RouteTarget } from '../../router/model-table.js';
import type { AppContext } from '../context.js';
import { requestIdFor, sendError } from '../reply-helpers.js';
import { assertMayUse, runPreamble } from '../route-preamble.js';
import { operatorReason } from '../../observability/operator-reason.js';

export function registerTokenCountRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/messages/count_tokens', (request, reply) => handleCount(ctx, messagesCodec, request, reply));
  app.post('/v1/responses/input_tokens', (request, reply) => handleCount(ctx, responsesCodec, request, reply));
}

export async function handleCount(ctx: AppContext, codec: CountingCodec, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const requestId = requestIdFor(request);
  const rec = new RequestRecord(requestId, codec.countEndpoint, performance.now());
  ctx.obs.requestStarted(rec);
  try {
    const { body, ir, plan, caller } = runPreamble(ctx, request, codec.decodeCountRequest, (decoded) => {
      rec.requestedModel = decoded.model;
    });
    // The same model rule as generation: counting tokens for a model the key may not use is a 404.
    assertMayUse(caller, ir.model);
    // Under the key's rpm window: counts go upstream on the shared provider key.
    const refused = await ctx.access.admitCount(caller).catch((err: unknown) => {
      throw err instanceof StateUnavailableError ? stateUnavailable(ctx, err, "check this key's limits") : err;
    });
    if (refused !== undefined) throw refused;
    rec.modelLabel = plan.label;
    const target = plan.targets[0]!;
    rec.provider = target.provider.name;
    rec.upstreamProtocol = target.provider.protocol;
    let count: number | undefined;
    let source = 'estimate';
    const asked = target.provider.protocol === 'demo' ? undefined : await upstreamCount(ctx, codec, body, ir, target, request);
    if (asked) {
      rec.lane = target.provider.protocol === codec.protocol ? 'passthrough' : 'translation';
      count = asked.count;
      if (count !== undefined) source = 'upstream';
    } else {
      rec.lane = 'local';
    }
    count ??= estimateInputTokens(ir);
    rec.status = 200;
    reply
      .code(200)
      .header(codec.requestIdHeader, requestId)
      .header('x-switchyard-token-count', source)
      .type('application/json')
      .send(codec.encodeCount(count));
  } catch (err) {
    const gerr = toGatewayError(err);
    rec.errorKind = gerr.kind;
    rec.errorReason = operatorReason(gerr);
    rec.status = sendError(reply, codec, gerr, requestId);
  } finally {
    rec.tEnd = performance.now();
    ctx.obs.requestFinished(rec);
  }
}

/** Undefined when the upstream has no counter; else its count, undefined when it could not give one
 * (then we estimate). A 4xx about the request itself is the caller's answer and is thrown. */
async function upstreamCount(
  ctx: AppContext,
  codec: CountingCodec,
  body: Record<string, unknown>,
  ir: IrRequest,
  target: RouteTarget,
  request: FastifyRequest,
): Promise<{ count: number | undefined } | undefined> {
  const provider = target.provider;
  const driver = driverFor(provider.protocol as Protocol);
  const same = provider.protocol === codec.protocol;
  const forwarded = same ? driver.forwardedHeaders(request.headers, codec.protocol) : undefined;
  assertTargetTakesMediaUrls(ir, provider);
  const encoded = driver.countTokensRequest(ir, driverTarget(provider, target.model, forwarded), same ? body : undefined);
  if (!encoded) return undefined;
  const count = await askUpstream(ctx, target, encoded, same, driver);
  return { count };
}

async function askUpstream(ctx: AppContext, target: RouteTarget, encoded: EncodedRequest, same: boolean, driver: Driver): Promise<number | undefined> {
  const provider = target.provider;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), Math.min(provider.timeouts.firstByteMs, 30_000));
  try {
    // The timer covers the platform's signing or token fetch too: a credential source that does not
    // answer ends in the estimate, not in a request that waits for it.
    const platform = provider.platform ? await untilAborted(platformRequest(provider, encoded, target.model, false, 'count_tokens'), abort.signal) : undefined;
    const req = platform ? platform.request : encoded;
    const res = await ctx.http.send(provider, { path: req.path, headers: req.headers, body: req.body, signal: abort.signal });
    const text = await readText(res.body, 1024 * 1024);
    if (res.status === 200) {
      const json = JSON.parse(text) as { input_tokens?: unknown };
      const n = platform?.platform.decodeCount ? platform.platform.decodeCount(json) : driver.decodeCount ? driver.decodeCount(json) : json.input_tokens;
      return typeof n === 'number' ? n : undefined;
    }
    const err = (platform && platformError(platform.platform, res.status, res.headers, text)) ?? driver.decodeError(res.status, res.headers, text);
    if (same && (err.kind === 'invalid_request' || err.kind === 'context_overflow')) throw err;
    return undefined;
  } catch (err) {
    if (err instanceof GatewayError && (err.kind === 'invalid_request' || err.kind === 'context_overflow')) throw err;
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** `work`, or a rejection as soon as `signal` fires (what `work` does later is ignored). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted while the platform prepared the request'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
