// Opaque reasoning state (an Anthropic thinking signature, a Responses `encrypted_content`) only goes
// back to the vendor family that produced it. A conversation carrying such state therefore prefers the
// deployments of that family; the others stay in the plan, after them, and drop the foreign state with
// a warning when they must be used (drivers' encode-request), instead of failing the request.
import type { ProviderProtocol } from '../config/types.js';
import type { IrRequest, ReasoningFamily } from '../ir/types.js';
import type { RouteTarget } from './model-table.js';

const FAMILY_OF_PROTOCOL: Record<ProviderProtocol, ReasoningFamily | undefined> = {
  messages: 'anthropic',
  responses: 'openai',
  chat: 'chat',
  gemini: 'google',
  demo: undefined,
};

/** The family of the most recent opaque reasoning carry in the conversation, if any. The latest one
 * wins: it is the state the next turn continues from. */
export function reasoningCarryFamily(ir: IrRequest): ReasoningFamily | undefined {
  for (let t = ir.turns.length - 1; t >= 0; t--) {
    const turn = ir.turns[t]!;
    if (turn.role !== 'assistant') continue;
    for (let p = turn.parts.length - 1; p >= 0; p--) {
      const part = turn.parts[p]!;
      if (part.type === 'reasoning' && part.carry) return part.carry.family;
    }
  }
  return undefined;
}

/**
 * Stable partition of the plan: targets whose protocol family matches the conversation's reasoning
 * carry first, in their existing order (strategy and health ordering are kept within each group).
 * Returns the same array when there is nothing to reorder.
 */
export function preferReasoningFamily(targets: RouteTarget[], ir: IrRequest): RouteTarget[] {
  if (targets.length < 2) return targets;
  const family = reasoningCarryFamily(ir);
  if (family === undefined) return targets;
  const same: RouteTarget[] = [];
  const other: RouteTarget[] = [];
  for (const t of targets) (FAMILY_OF_PROTOCOL[t.provider.protocol] === family ? same : other).push(t);
  if (same.length === 0 || other.length === 0) return targets;
  return [...same, ...other];
}
