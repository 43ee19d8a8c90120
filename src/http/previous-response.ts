// Responses `previous_response_id`: one lookup in the shared store, in front of the request (the only
// state call on its path). A stored conversation is spliced in front of the new input (the lanes then
// decide per attempt whether to forward the id instead: passthrough-body.ts). An id the gateway never
// stored is forwarded when every deployment of the plan is a Responses upstream (OpenAI may know it);
// otherwise, or when it is another key's, it is a 400 in OpenAI's wording. `instructions` are never
// inherited (they are not turns).
import { GatewayError } from '../errors.js';
import type { IrRequest } from '../ir/types.js';
import type { RoutePlan } from '../router/model-table.js';
import type { StoredConversation } from '../responses-store/stored-response.js';
import { StateUnavailableError } from '../state/types.js';
import type { AppContext } from './context.js';
import { stateUnavailable } from './state-unavailable.js';

export interface Continuation {
  /** The request, its turns preceded by the stored conversation when there is one. */
  ir: IrRequest;
  /** The stored previous response, when the gateway has it. */
  previous?: StoredConversation;
}

/** Re-reads of a miss: the previous answer's save starts after its last byte, possibly in another process. */
const MISS_RECHECK_MS = [25, 75, 200];

export async function resolvePreviousResponse(ctx: AppContext, ir: IrRequest, plan: RoutePlan, owner: string): Promise<Continuation> {
  const prev = ir.extras.responses?.previous_response_id;
  if (typeof prev !== 'string' || prev === '') return { ir };
  const responsesOnly = plan.targets.every((t) => t.provider.protocol === 'responses');
  let record: StoredConversation | undefined;
  try {
    record = await load(ctx, prev, owner);
  } catch (err) {
    if (!(err instanceof StateUnavailableError)) throw err;
    // The upstream keeps its own state: let it answer rather than refuse.
    if (responsesOnly) return { ir };
    throw stateUnavailable(ctx, err);
  }
  if (record) return { ir: { ...ir, turns: [...record.turns, ...ir.turns] }, previous: record };
  // Another key's response is as unknown as a missing one, including to an upstream that could resolve it.
  if (responsesOnly && !(await ctx.responses.storedForAnother(prev, owner).catch(() => false))) return { ir };
  throw new GatewayError('invalid_request', `Previous response with id '${prev}' not found.`, {
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  });
}

async function load(ctx: AppContext, id: string, owner: string): Promise<StoredConversation | undefined> {
  const saving = ctx.saver.inFlight(id);
  if (saving?.record) return saving.record.owner === owner ? saving.record : undefined;
  if (saving) await saving.done;
  const record = await ctx.responses.loadConversation(id, owner);
  if (record) return record;
  // Misses are rare (a typo, an expired or evicted id): waiting a little on them costs nobody else.
  for (const ms of MISS_RECHECK_MS) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    const again = await ctx.responses.loadConversation(id, owner);
    if (again) return again;
  }
  return undefined;
}
