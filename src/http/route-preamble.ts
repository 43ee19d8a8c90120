// What every model-facing route does first, once: take the caller the auth hook identified
// (auth-hook.ts), decode the body with the door's codec, and resolve the model to a route plan. Errors
// are thrown as GatewayErrors; the route answers them in its door's envelope (reply-helpers.ts sendError).
import type { FastifyRequest } from 'fastify';
import type { MediaUrlRule } from '../ir/media-url.js';
import type { IrRequest, Warning } from '../ir/types.js';
import type { RoutePlan } from '../router/model-table.js';
import type { Caller } from '../access/caller.js';
import { modelAccessError, modelNotAvailable } from '../access/model-access.js';
import { identify } from './auth.js';
import { queryKeyOf } from './auth-hook.js';
import type { AppContext } from './context.js';

export interface Preamble {
  /** Who is calling (the anonymous caller under open access). */
  caller: Caller;
  body: Record<string, unknown>;
  ir: IrRequest;
  /** Decode warnings (the lanes add their own per attempt). */
  warnings: Warning[];
  plan: RoutePlan;
}

/** The caller the auth hook (auth-hook.ts) identified before the body was read. */
export function identifyCaller(ctx: AppContext, request: FastifyRequest): Caller {
  return request.caller ?? identify(ctx.config, request.headers, queryKeyOf(request), ctx.runtimeKeys);
}

/** The model's route plan; a model this gateway does not serve is a 404 naming the field. */
export function resolveModel(ctx: AppContext, model: string): RoutePlan {
  const plan = ctx.table.resolve(model);
  if (!plan) {
    throw modelNotAvailable(model);
  }
  return plan;
}

/** The same model rule as admission (access/model-access.ts), thrown: for routes without admission. */
export function assertMayUse(caller: Caller, model: string): void {
  const refused = modelAccessError(caller, model);
  if (refused !== undefined) throw refused;
}

/** Take the caller, decode (with the given decoder of the door's codec, under the config's media-URL
 * rule for the doors: ir/media-url.ts), resolve the model. `onDecoded`
 * lets the caller stamp its record between the steps (decode and routing are timed separately).
 * `body` replaces the caller's body when a step before decoding rewrote it (item references). */
export function runPreamble(
  ctx: AppContext,
  request: FastifyRequest,
  decode: (body: unknown, warnings: Warning[], mediaUrls: MediaUrlRule) => IrRequest,
  onDecoded?: (ir: IrRequest) => void,
  caller: Caller = identifyCaller(ctx, request),
  body = request.body as Record<string, unknown>,
): Preamble {
  return decodeAndRoute(ctx, decode, onDecoded, caller, body);
}

/** runPreamble for a caller already known and a body already parsed (any transport). */
export function decodeAndRoute(
  ctx: AppContext,
  decode: (body: unknown, warnings: Warning[], mediaUrls: MediaUrlRule) => IrRequest,
  onDecoded: ((ir: IrRequest) => void) | undefined,
  caller: Caller,
  body: Record<string, unknown>,
): Preamble {
  const warnings: Warning[] = [];
  const ir = decode(body, warnings, ctx.config.mediaUrls);
  onDecoded?.(ir);
  const plan = resolveModel(ctx, ir.model);
  return { caller, body, ir, warnings, plan };
}
