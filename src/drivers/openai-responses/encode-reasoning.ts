// IR reasoning request → Responses `reasoning` (mapping.md §8). Anthropic-style budgets become an
// effort; summaries are asked for by default so callers of the Messages door still get thinking text.
import type { ReasoningRequest } from '../../ir/types.js';
import type { ReasoningEffortParam, ReasoningParam } from '../../protocols/openai-responses/upstream-request.js';

export function effortForBudget(budget: number): ReasoningEffortParam {
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  if (budget <= 24576) return 'high';
  return 'xhigh';
}

/** undefined: send no `reasoning` (the model's default). */
export function encodeReasoning(r: ReasoningRequest | undefined): ReasoningParam | undefined {
  if (r === undefined || r.mode === 'disabled') return undefined;
  let effort: ReasoningEffortParam | undefined = r.effort;
  if (effort === undefined) {
    if (r.budgetTokens !== undefined) effort = effortForBudget(r.budgetTokens);
    else if (r.mode === 'adaptive' || r.mode === 'enabled') effort = 'medium';
  }
  const out: ReasoningParam = {};
  if (effort !== undefined) out.effort = effort;
  if (effort === 'none') return out;
  // null: the caller declined summaries; `omitted`: a Messages caller asked for no thinking text.
  if (r.summary !== null && r.display !== 'omitted') out.summary = r.summary ?? 'auto';
  return out;
}
