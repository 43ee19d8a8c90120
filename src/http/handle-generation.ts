// One generation request through either front door: the preamble (authenticate, decode, resolve the
// model; no state I/O), admission, the stored state the request names (item references, previous
// response: store reads only for admitted requests), then the router's attempt loop, each attempt run
// through the lane its deployment needs (pass-through, translation, or the in-process demo);
// accounting once it is over.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InboundCodec } from '../codecs/types.js';
import { GatewayError, toGatewayError, type GatewayErrorKind } from '../errors.js';
import type { Warning } from '../ir/types.js';
import { operatorReason } from '../observability/operator-reason.js';
import { RequestRecord } from '../observability/request-record.js';
import { runAttempts } from '../router/attempts.js';
import type { RouteTarget } from '../router/model-table.js';
import { preferReasoningFamily } from '../router/reasoning-affinity.js';
import { assertResolvedFor, countItemReferences, expandItemReferences } from '../responses-store/expand-item-references.js';
import { ClientGone } from './client-gone.js';
import { headerText } from './header-value.js';
import type { AppContext } from './context.js';
import { Generation } from './generation.js';
import { newId } from './ids.js';
import { runDemoLane } from './lanes/demo-lane.js';
import { runPassthroughLane } from './lanes/passthrough-lane.js';
import { runTranslationLane } from './lanes/translation-lane.js';
import { resolvePreviousResponse } from './previous-response.js';
import { ReferencedItems } from './referenced-items.js';
import { requestIdFor } from './reply-helpers.js';
import { HttpTransport, type AnswerTransport } from './answer-transport.js';
import { identify } from './auth.js';
import type { Caller } from '../access/caller.js';
import type { StoredConversation } from '../responses-store/stored-response.js';
import { accountGeneration, admitGeneration, priceGeneration } from './request-seams.js';
import { stateUnavailable } from './state-unavailable.js';
import { StateUnavailableError } from '../state/types.js';
import { decodeAndRoute } from './route-preamble.js';

/** One generation request as the transport hands it over. */
export interface GenerationInput {
  transport: AnswerTransport;
  requestId: string;
  /** The caller the auth hook identified (undefined: identified from the transport's headers). */
  caller: Caller | null | undefined;
  /** The parsed create body. */
  body: Record<string, unknown>;
  /** Socket transports: the connection's own most recent response, tried before the store. */
  localPrevious?: (id: string) => StoredConversation | undefined;
}

/** An HTTP request to a generation route. */
export function handleHttpGeneration(ctx: AppContext, codec: InboundCodec, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const transport = new HttpTransport(request, reply);
  return handleGeneration(ctx, codec, { transport, requestId: requestIdFor(request), caller: request.caller, body: request.body as Record<string, unknown> });
}

export async function handleGeneration(ctx: AppContext, codec: InboundCodec, input: GenerationInput): Promise<void> {
  const { transport, requestId } = input;
  const rec = new RequestRecord(requestId, codec.protocol, performance.now());
  rec.transport = transport.name;
  ctx.obs.requestStarted(rec);
  const clientGone = new ClientGone();
  const inFlight = ctx.inFlight.enter(codec.protocol, transport);
  let gen: Generation | undefined;
  transport.onCallerGone(() => {
    rec.clientAborted = true;
    clientGone.abort();
    gen?.upstreamAbort?.abort('client');
  });
  try {
    gen = openGeneration(ctx, codec, input, rec, clientGone);
    // This frame stays suspended while the answer streams: `input` must not keep the parsed body alive
    // (the Generation lets go of its own copy once committed, releaseCallerBody).
    (input as { body: unknown }).body = undefined;
    inFlight.gen = gen;
    if (inFlight.cut) gen.shutdownCut = true;
    await admitGeneration(gen);
    await loadStoredState(gen);
    await runPlan(gen);
  } catch (err) {
    const gerr = err instanceof StateUnavailableError ? stateUnavailable(ctx, err, 'resolve stored items') : toGatewayError(err);
    rec.errorKind = gerr.kind;
    rec.errorReason = operatorReason(gerr);
    if (transport.unanswered) rec.status = transport.sendError(codec, gerr, requestId, { ...gen?.accessHeaders, ...triedHeaders(rec) });
    if (!(err instanceof GatewayError)) {
      ctx.logger.error({ requestId, err: ctx.obs.safeError(err) }, 'unexpected failure');
    }
  } finally {
    rec.tEnd = performance.now();
    if (gen) priceGeneration(gen);
    ctx.obs.requestFinished(rec);
  }
  if (gen) {
    await accountGeneration(gen).catch((err: unknown) => {
      ctx.logger.error({ requestId, err: ctx.obs.safeError(err) }, 'accounting failed');
    });
  }
  ctx.inFlight.leave(inFlight);
}

/**
 * Authenticate, decode and route: the Generation, or a throw. No state I/O here: the store is read only
 * for admitted requests (loadStoredState). Its own frame, so the preamble's intermediates are not kept
 * alive by handleGeneration's suspended frame for as long as the answer streams.
 */
function openGeneration(ctx: AppContext, codec: InboundCodec, input: GenerationInput, rec: RequestRecord, clientGone: ClientGone): Generation {
  const { transport, requestId } = input;
  const caller = input.caller ?? identify(ctx.config, transport.headers, undefined, ctx.runtimeKeys);
  rec.keyName = caller.name;
  rec.teamName = caller.team ?? '';
  const callerBody = input.body;
  // The reference cap is part of validation: refused before admission takes a slot.
  const referenceCount = countItemReferences(codec.protocol, callerBody);
  // A body with references is decoded as sent (they decode to nothing) to validate and route it, and
  // again once they are expanded.
  const pre = decodeAndRoute(
    ctx,
    codec.decodeRequest,
    (ir) => {
      rec.tDecoded = performance.now();
      rec.requestedModel = ir.model;
      rec.stream = ir.stream;
    },
    caller,
    callerBody,
  );
  rec.modelLabel = pre.plan.label;
  rec.tRouted = performance.now();
  rec.warnings = pre.warnings;
  const references = referenceCount > 0 ? new ReferencedItems(ctx.responses) : undefined;
  return new Generation(
    { ctx, codec, ir: pre.ir, body: pre.body, caller: pre.caller, rec, transport, warnings: pre.warnings, requestId, plan: pre.plan, clientGone, callerBody, references },
    newId(codec.responseIdPrefix),
    input.localPrevious,
  );
}

/**
 * After admission: Responses `item_reference` inputs become the caller's stored items (the body is
 * decoded again with them), then the previous response is resolved. StateUnavailableError → 503.
 */
async function loadStoredState(gen: Generation): Promise<void> {
  const { ctx, codec } = gen;
  if (gen.references) {
    const forward = gen.plan.targets.some((t) => t.provider.protocol === 'responses');
    const body = await expandItemReferences(codec.protocol, gen.callerBody, forward, gen.references, gen.caller.name);
    if (body !== gen.callerBody) {
      const warnings: Warning[] = [];
      gen.ir = codec.decodeRequest(body, warnings, ctx.config.mediaUrls);
      gen.body = body;
      gen.setDecodeWarnings(warnings);
      gen.rec.warnings = warnings;
    }
  }
  const { ir, previous } = await resolvePreviousResponse(ctx, gen.ir, gen.plan, gen.caller.name, gen.localPrevious);
  gen.ir = ir;
  gen.previous = previous;
}

/** The router decides (order, retries, waits); this side runs each attempt and keeps the record. */
function runPlan(gen: Generation): Promise<void> {
  const { ctx, rec } = gen;
  // Opaque reasoning goes back only to the family that made it: try that family first.
  const targets = preferReasoningFamily(gen.plan.targets, gen.ir);
  let attemptNo = 0;
  return runAttempts(targets, ctx.health, {
    signal: gen.clientGone.signal,
    committed: () => gen.committed,
    stopped: () => gen.shutdownCut,
    onAttemptStart({ target, attempt, fallback }) {
      if (fallback) {
        rec.fallbacks++;
        ctx.obs.recordFallback(rec.modelLabel);
      }
      rec.attempts++;
      attemptNo = attempt;
      if (attempt > 1) rec.retries++;
      rec.provider = target.provider.name;
      rec.upstreamProtocol = target.provider.protocol;
      rec.upstreamModel = target.model;
      // Per attempt: an early error event of a failed attempt is not this attempt's outcome.
      rec.errorKind = undefined;
    },
    onAttemptEnd(target, outcome) {
      ctx.obs.recordAttempt(target.provider.name, outcome, target.deployment);
      if (outcome === 'success') ctx.obs.attemptSucceeded(rec, target.deployment, attemptNo);
    },
    onAttemptFailed({ target, attempt, error, next, why, waitMs }) {
      ctx.obs.attemptFailed(rec, {
        deployment: target.deployment,
        attempt,
        outcome: error.kind,
        upstreamStatus: error.upstreamStatus,
        reason: operatorReason(error),
        next,
        why,
        waitMs,
      });
    },
    onDeploymentSkipped(target, attempt) {
      ctx.obs.deploymentSkipped(rec, target.deployment, attempt);
    },
    async runAttempt(target) {
      gen.attemptTarget = target;
      try {
        await runLane(gen, target);
      } finally {
        gen.attemptTarget = undefined;
      }
      // The stream failed after the caller got its first byte: the router still counts it.
      return gen.rec.errorKind as GatewayErrorKind | undefined;
    },
  });
}

function runLane(gen: Generation, target: RouteTarget): Promise<void> {
  const protocol = target.provider.protocol;
  // A reference kept for OpenAI cannot be served by another protocol (a fallback): a 400 naming it.
  if (protocol !== 'responses') assertResolvedFor(gen.codec.protocol, gen.body, target.provider.name);
  if (protocol === 'demo') {
    gen.rec.lane = 'local';
    return runDemoLane(gen, target);
  }
  if (protocol === gen.codec.protocol) {
    gen.rec.lane = 'passthrough';
    return runPassthroughLane(gen, target);
  }
  gen.rec.lane = 'translation';
  return runTranslationLane(gen, target);
}

/** A failure after attempts says which deployment was tried last and how many attempts were made (the
 * served-by headers of a success); a refusal before any attempt has none. */
function triedHeaders(rec: RequestRecord): Record<string, string> {
  if (rec.attempts === 0) return {};
  return { 'x-switchyard-provider': rec.provider, 'x-switchyard-model': headerText(rec.upstreamModel), 'x-switchyard-attempts': String(rec.attempts) };
}
