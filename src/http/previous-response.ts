// Responses `previous_response_id`: splice the stored conversation in front of the new input when the
// gateway answered it. A plan whose every deployment is a Responses upstream lets the upstream resolve
// it (pass-through). Async already: the store will be the shared-state backend, reached over the wire.
import { GatewayError } from '../errors.js';
import type { IrRequest } from '../ir/types.js';
import type { RoutePlan } from '../router/model-table.js';
import type { AppContext } from './context.js';

export async function resolvePreviousResponse(ctx: AppContext, ir: IrRequest, plan: RoutePlan): Promise<IrRequest> {
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
