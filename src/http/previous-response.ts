// Responses `previous_response_id`, after admission: one lookup in the shared store. A stored
// conversation is spliced in front of the new input (the lanes then decide per attempt whether to
// forward the id instead: passthrough-body.ts). A miss reads the id's claim: another key's id is a
// 400 `previous_response_not_found` in OpenAI's wording; an id no key claimed (or the caller's own,
// no longer stored) is forwarded when every deployment of the plan is a Responses upstream (OpenAI
// may know it), else the same 400. Another key's id and an unknown one therefore get the same answer
// (OpenAI's own for an id it does not know), never the other key's conversation. Fails closed: when
// the store or the claim cannot be read, a 503 and nothing goes upstream. `instructions` are never
// inherited; the conversation's system/developer input messages are, where the record has them.
import { withEarlierSystem } from '../codecs/openai-responses/decode-request.js';
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

/** What the store says about an id for this caller. */
type Lookup = { record: StoredConversation } | { anothers: true } | { miss: true };

export async function resolvePreviousResponse(
  ctx: AppContext,
  ir: IrRequest,
  plan: RoutePlan,
  owner: string,
  local?: (id: string) => StoredConversation | undefined,
): Promise<Continuation> {
  const prev = ir.extras.responses?.previous_response_id;
  if (typeof prev !== 'string' || prev === '') return { ir };
  // A socket's own most recent response (kept with store: false too), before any store read.
  const own = local?.(prev);
  if (own) return { ir: continued(ir, own), previous: own };
  let found: Lookup;
  let claimedBy: string | undefined;
  try {
    found = await load(ctx, prev, owner);
    if ('record' in found) return { ir: continued(ir, found.record), previous: found.record };
    if ('miss' in found) claimedBy = await ctx.responses.responseOwner(prev);
  } catch (err) {
    if (err instanceof StateUnavailableError) throw stateUnavailable(ctx, err);
    throw err;
  }
  const anothers = 'anothers' in found || (claimedBy !== undefined && claimedBy !== owner);
  // Unknown to this gateway, or the caller's own but no longer stored: OpenAI may still hold it.
  if (!anothers && plan.targets.every((t) => t.provider.protocol === 'responses')) return { ir };
  throw new GatewayError('invalid_request', `Previous response with id '${prev}' not found.`, {
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  });
}

/** `ir` after the previous conversation: its turns first, its system/developer messages after `instructions`. */
export function continued(ir: IrRequest, previous: StoredConversation): IrRequest {
  return { ...ir, system: withEarlierSystem(ir, previous.system ?? []), turns: [...previous.turns, ...ir.turns] };
}

async function load(ctx: AppContext, id: string, owner: string): Promise<Lookup> {
  const saving = ctx.saver.inFlight(id);
  // Being saved by this process: its claim may not have landed yet, the record says whose it is.
  if (saving?.record) return saving.record.owner === owner ? { record: saving.record } : { anothers: true };
  if (saving) await saving.done;
  const record = await ctx.responses.loadConversation(id, owner);
  if (record) return { record };
  // Misses are rare (a typo, an expired or evicted id): waiting a little on them costs nobody else.
  for (const ms of MISS_RECHECK_MS) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    const again = await ctx.responses.loadConversation(id, owner);
    if (again) return { record: again };
  }
  return { miss: true };
}
