// One generation request through either front door: authenticate, decode to IR, route, then try the
// plan's deployments in order — retrying and falling back only while nothing has reached the caller —
// through the lane each deployment needs (pass-through, translation, or the in-process demo).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InboundCodec } from '../codecs/types.js';
import { GatewayError, KIND_INFO, toGatewayError, type GatewayErrorKind } from '../errors.js';
import type { IrRequest, Warning } from '../ir/types.js';
import { RequestRecord } from '../observability/request-record.js';
import type { RoutePlan, RouteTarget } from '../router/model-table.js';
import type { DeploymentHealth } from '../router/deployment-health.js';
import { preferReasoningFamily } from '../router/reasoning-affinity.js';
import { ANONYMOUS_OWNER, assertResolvedFor, expandItemReferences } from '../responses-store/expand-item-references.js';
import { authenticate } from './auth.js';
import { newId } from './ids.js';
import type { AppContext } from './context.js';
import { runDemoLane } from './lanes/demo-lane.js';
import { runPassthroughLane } from './lanes/passthrough-lane.js';
import { runTranslationLane } from './lanes/translation-lane.js';
import { requestIdFor, sendError } from './reply-helpers.js';

export interface Generation {
  ctx: AppContext;
  codec: InboundCodec;
  ir: IrRequest;
  /** The caller's parsed body, forwarded (model replaced) on the pass-through lane. */
  body: Record<string, unknown>;
  /** The gateway key name that made the request (ANONYMOUS_OWNER when the gateway is open). */
  owner: string;
  rec: RequestRecord;
  request: FastifyRequest;
  reply: FastifyReply;
  /** Warnings of this request; replaced per attempt by the lanes (decode warnings first). */
  warnings: Warning[];
  /** How many of `warnings` came from decoding the caller's request (kept across attempts). */
  baseWarningCount: number;
  requestId: string;
  /** Gateway-owned response id in the caller's protocol (msg_… / resp_…). */
  responseId: string;
  createdAt: number;
  plan: RoutePlan;
  /** Aborted when the caller disconnects: lanes abort their upstream request with it. */
  clientGone: AbortController;
  /** True once any byte (status line) went to the caller: no retry or fallback after that. */
  committed: boolean;
  /** Headers every answer carries (request id, served-by). */
  baseHeaders(target: RouteTarget): Record<string, string>;
}


export async function handleGeneration(
  ctx: AppContext,
  codec: InboundCodec,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const now = performance.now();
  const requestId = requestIdFor(request);
  const rec = new RequestRecord(requestId, codec.protocol, now);
  ctx.obs.requestStarted(rec);
  const clientGone = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) {
      rec.clientAborted = true;
      clientGone.abort();
    }
  });
  try {
    const owner = authenticate(ctx.config.authKeys, request.headers) ?? ANONYMOUS_OWNER;
    const warnings: Warning[] = [];
    const body = await expandItemReferences(codec.protocol, request.body as Record<string, unknown>, (m) => ctx.table.resolve(m), ctx.store, owner);
    let ir = codec.decodeRequest(body, warnings);
    rec.tDecoded = performance.now();
    rec.requestedModel = ir.model;
    rec.stream = ir.stream;
    const plan = ctx.table.resolve(ir.model);
    if (!plan) {
      throw new GatewayError('not_found', `model "${ir.model}" is not configured on this gateway`, {
        param: 'model',
        code: 'model_not_found',
      });
    }
    rec.modelLabel = plan.label;
    rec.tRouted = performance.now();
    rec.warnings = warnings;
    ir = resolvePreviousResponse(ctx, ir, plan);
    const gen: Generation = {
      ctx,
      codec,
      ir,
      body,
      owner,
      rec,
      request,
      reply,
      warnings,
      baseWarningCount: warnings.length,
      requestId,
      responseId: newId(codec.protocol === 'messages' ? 'msg_' : 'resp_'),
      createdAt: Math.floor(Date.now() / 1000),
      plan,
      clientGone,
      committed: false,
      baseHeaders(target) {
        const h: Record<string, string> = {
          [codec.protocol === 'messages' ? 'request-id' : 'x-request-id']: requestId,
          'x-switchyard-provider': target.provider.name,
          'x-switchyard-model': target.model,
          'x-switchyard-attempts': String(rec.attempts),
        };
        if (this.warnings.length) h['x-switchyard-warnings'] = warningsHeader(this.warnings);
        return h;
      },
    };
    await runPlan(gen);
  } catch (err) {
    const gerr = toGatewayError(err);
    rec.errorKind = gerr.kind;
    if (!reply.sent && !reply.raw.headersSent) {
      rec.status = sendError(reply, codec, gerr, requestId);
    }
    if (!(err instanceof GatewayError)) {
      ctx.logger.error({ requestId, err: ctx.obs.safeError(err) }, 'unexpected failure');
    }
  } finally {
    rec.tEnd = performance.now();
    ctx.obs.requestFinished(rec);
  }
}

/**
 * Try each deployment of the plan, with retries, until one answers or nothing is left. Retries and
 * fallbacks happen only while nothing has reached the caller. A deployment whose circuit is open (or
 * whose one half-open probe is out) is skipped while a later one in the plan is available; when none
 * is, it is tried anyway (panic mode: refusing all traffic would protect nothing when there is no
 * alternative). The retry budget bounds retries and their backoff; each further deployment of the
 * plan still gets its one attempt.
 */
async function runPlan(gen: Generation): Promise<void> {
  const { ctx, rec, plan } = gen;
  const health = ctx.health;
  const started = Date.now();
  // Opaque reasoning goes back only to the family that made it: try that family first.
  const targets = preferReasoningFamily(plan.targets, gen.ir);
  let lastError: GatewayError | undefined;
  let current: RouteTarget | undefined;
  let attempted = 0;
  // A deployment is healthy as soon as its answer reaches the caller; a half-open probe that streams
  // for minutes must not hold the circuit half-open (and the deployment unavailable) meanwhile.
  onCommit(gen, () => {
    if (current) health.success(current.deployment);
  });
  for (let ti = 0; ti < targets.length; ti++) {
    const target = targets[ti]!;
    const policy = target.provider.retry;
    for (let attempt = 1; attempt <= policy.attempts; attempt++) {
      if (gen.clientGone.signal.aborted) return;
      if (!health.available(target.deployment) && laterAvailable(health, targets, ti)) break;
      if (attempt === 1 && attempted > 0) {
        rec.fallbacks++;
        ctx.obs.recordFallback(rec.modelLabel);
      }
      attempted++;
      rec.attempts++;
      if (attempt > 1) rec.retries++;
      rec.provider = target.provider.name;
      rec.upstreamProtocol = target.provider.protocol;
      rec.upstreamModel = target.model;
      // Per attempt: an early error event of a failed attempt is not this attempt's outcome.
      rec.errorKind = undefined;
      current = target;
      health.begin(target.deployment);
      try {
        await runLane(gen, target);
        ctx.obs.recordAttempt(target.provider.name, 'success');
        // The stream failed after the caller got its first byte: nothing can be retried, but a
        // mid-stream overload or reset still counts against the deployment.
        const midStream = rec.errorKind;
        if (midStream !== undefined && !rec.clientAborted && KIND_INFO[midStream as GatewayErrorKind]?.retryable) {
          health.failure(target.deployment, target.provider.cooldown);
        }
        return;
      } catch (err) {
        const gerr = toGatewayError(err);
        lastError = gerr;
        ctx.obs.recordAttempt(target.provider.name, gerr.kind);
        if (gen.committed || gen.clientGone.signal.aborted) throw gerr;
        if (!retryable(gerr)) throw gerr;
        health.failure(target.deployment, target.provider.cooldown);
        // Our own credentials refused: retrying the same deployment cannot help; another may.
        if (gerr.upstreamStatus === 401 || gerr.upstreamStatus === 403) break;
        if (attempt < policy.attempts) {
          const delay = backoffDelay(policy.backoffMs, policy.maxBackoffMs, attempt, gerr);
          if (Date.now() - started + delay > policy.budgetMs) break;
          await sleep(delay, gen.clientGone.signal);
        }
      } finally {
        health.end(target.deployment);
        current = undefined;
      }
      if (Date.now() - started > policy.budgetMs) break;
    }
  }
  throw lastError ?? new GatewayError('overloaded', 'no upstream deployment is available');
}

/**
 * May the router try again (same deployment or another)? The error's kind decides, and the upstream's
 * HTTP status as well: 408, 409, 429 and 5xx are transient whatever the body says (a 408 from a
 * proxy or an upstream that labels it `invalid_request_error` is still worth another attempt). A
 * context overflow never is (the same prompt overflows again), nor an exhausted quota (a 429 too).
 */
function retryable(err: GatewayError): boolean {
  if (err.kind === 'context_overflow' || err.kind === 'billing') return false;
  if (err.retryable) return true;
  const status = err.upstreamStatus;
  return status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500);
}

function laterAvailable(health: DeploymentHealth, targets: RouteTarget[], index: number): boolean {
  for (let i = index + 1; i < targets.length; i++) if (health.available(targets[i]!.deployment)) return true;
  return false;
}

/** Calls `fn` when a lane marks the generation committed (first byte to the caller). */
function onCommit(gen: Generation, fn: () => void): void {
  let committed = gen.committed;
  Object.defineProperty(gen, 'committed', {
    configurable: true,
    enumerable: true,
    get: () => committed,
    set: (value: boolean) => {
      const first = value && !committed;
      committed = value;
      if (first) fn();
    },
  });
}

function runLane(gen: Generation, target: RouteTarget): Promise<void> {
  const protocol = target.provider.protocol;
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

/**
 * Exponential backoff with jitter (a random point in the upper half of the step, so retries of many
 * requests spread out but never come back sooner than half the step), or the upstream's retry-after
 * (retry-after-ms, delta-seconds or an HTTP date) when it asks for longer.
 */
export function backoffDelay(baseMs: number, maxMs: number, attempt: number, err: GatewayError): number {
  const exp = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  let delay = exp / 2 + Math.random() * (exp / 2);
  const asked = retryAfterMs(err);
  if (asked !== undefined && asked > delay) delay = asked;
  return Math.ceil(delay);
}

function retryAfterMs(err: GatewayError, now = Date.now()): number | undefined {
  if (err.retryAfterMs !== undefined) {
    const ms = Number(err.retryAfterMs);
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  if (err.retryAfter !== undefined) {
    const s = Number(err.retryAfter);
    if (Number.isFinite(s) && s >= 0) return s * 1000;
    const date = Date.parse(err.retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

function warningsHeader(warnings: Warning[]): string {
  const fields = [...new Set(warnings.map((w) => w.field))].join(',');
  return (warnings.length + '; ' + fields).slice(0, 512).replace(/[^\x20-\x7e]/g, '?');
}

/**
 * Responses `previous_response_id`: splice the stored conversation in front of the new input when the
 * gateway answered it. A pass-through-only plan (OpenAI upstream) lets the upstream resolve it.
 */
function resolvePreviousResponse(ctx: AppContext, ir: IrRequest, plan: RoutePlan): IrRequest {
  const prev = ir.extras.responses?.previous_response_id;
  if (typeof prev !== 'string' || prev === '') return ir;
  const turns = ctx.store.get(prev);
  if (turns) return { ...ir, turns: [...turns, ...ir.turns] };
  if (plan.targets.every((t) => t.provider.protocol === 'responses')) return ir;
  throw new GatewayError('invalid_request', `Previous response with id '${prev}' not found.`, {
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  });
}
