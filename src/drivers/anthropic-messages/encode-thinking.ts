// IR reasoning request → Messages `thinking`, `output_config.effort` and the final `max_tokens`
// (mapping.md §8, §11, §15.25–26, messages.md §8). Every rule Anthropic enforces with a 400 is settled
// here before sending: budget range, forced tool choice with manual thinking, and a tool loop whose
// last assistant message has no thinking to restore.
import type { IrRequest, ReasoningEffort, Warning } from '../../ir/types.js';
import type { UpstreamEffort, UpstreamThinking } from '../../protocols/anthropic-messages/upstream-request.js';

/** Anthropic's smallest accepted `budget_tokens`. */
export const MIN_BUDGET = 1024;
/** Room for the answer itself when `max_tokens` is raised to fit a budget. */
const ANSWER_ROOM = 4096;

/** Effort → manual thinking budget for callers that only state an effort (mapping.md §8). */
const EFFORT_BUDGET: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 4096,
  medium: 8192,
  high: 16384,
  xhigh: 32000,
  max: 48000,
};

export interface ThinkingPlan {
  /** undefined: omit the field (never asked for). */
  thinking: UpstreamThinking | undefined;
  effort: UpstreamEffort | undefined;
  maxTokens: number;
  /** Thinking is on in what is sent (temperature/top_k rules, thinking blocks kept). */
  on: boolean;
}

export interface ThinkingContext {
  defaultMaxTokens: number;
  /** tool_choice forces a call (`any` / `tool`). */
  forcedTool: boolean;
  /** The conversation is in an open tool loop; `restorable`: its assistant message starts with thinking. */
  toolLoop: { restorable: boolean } | undefined;
}

function upstreamEffort(effort: ReasoningEffort | undefined): UpstreamEffort | undefined {
  if (effort === undefined || effort === 'none') return undefined;
  // Anthropic's scale starts at low.
  return effort === 'minimal' ? 'low' : effort;
}

export function planThinking(req: IrRequest, ctx: ThinkingContext, warnings: Warning[]): ThinkingPlan {
  const explicitMax = req.maxOutputTokens !== undefined;
  const maxTokens = req.maxOutputTokens ?? ctx.defaultMaxTokens;
  const r = req.reasoning;
  const sameFamily = req.sourceProtocol === 'messages';
  const off: ThinkingPlan = { thinking: undefined, effort: undefined, maxTokens, on: false };
  if (!r || r.effort === 'none') return off;
  const effort = upstreamEffort(r.effort);
  // A Messages caller's own output_config.effort goes back whatever its thinking mode; for other
  // callers effort is what the thinking budget is derived from.
  const ownEffort = sameFamily ? effort : undefined;
  if (r.mode === 'disabled') return { ...off, effort: ownEffort };

  let mode: 'enabled' | 'adaptive';
  let budget = 0;
  if (r.mode === 'adaptive') {
    mode = 'adaptive';
  } else if (r.mode === 'enabled' || r.budgetTokens !== undefined || (!sameFamily && (r.effort !== undefined || (r.summary ?? null) !== null))) {
    // OpenAI callers: a reasoning request without an effort means the model's default effort
    // (medium), not "off" — Codex sends only {summary:"auto"} for models it does not know.
    mode = 'enabled';
    budget = r.budgetTokens ?? EFFORT_BUDGET[r.effort ?? 'medium'];
  } else {
    // Nothing that asks for thinking (a Messages caller's output_config.effort alone, or only a
    // summary preference): effort as asked, no thinking.
    return { ...off, effort: ownEffort };
  }
  const sendEffort = mode === 'adaptive' ? effort : ownEffort;
  const disabled = (message: string): ThinkingPlan => {
    warnings.push({ field: 'thinking', message });
    return { thinking: { type: 'disabled' }, effort: sendEffort, maxTokens, on: false };
  };

  if (mode === 'enabled' && ctx.forcedTool) {
    return disabled('thinking was disabled: Anthropic does not allow manual thinking with a forced tool choice');
  }
  if (ctx.toolLoop && !ctx.toolLoop.restorable) {
    return disabled('thinking was disabled: the last assistant turn of the tool loop has no Anthropic thinking to replay');
  }
  if (mode === 'adaptive') {
    const thinking: UpstreamThinking = r.display ? { type: 'adaptive', display: r.display } : { type: 'adaptive' };
    return { thinking, effort: sendEffort, maxTokens, on: true };
  }

  let max = maxTokens;
  if (budget < MIN_BUDGET) {
    warnings.push({ field: 'thinking', message: `thinking budget ${budget} raised to Anthropic's minimum of ${MIN_BUDGET}` });
    budget = MIN_BUDGET;
  }
  if (budget >= max) {
    if (!explicitMax) {
      max = budget + ANSWER_ROOM;
    } else {
      if (max - 1 < MIN_BUDGET) {
        return disabled(`thinking was disabled: max_tokens ${max} leaves no room for Anthropic's minimum thinking budget of ${MIN_BUDGET}`);
      }
      warnings.push({ field: 'thinking', message: `thinking budget ${budget} lowered to ${max - 1} to stay below max_tokens` });
      budget = max - 1;
    }
  }
  const thinking: UpstreamThinking = r.display
    ? { type: 'enabled', budget_tokens: budget, display: r.display }
    : { type: 'enabled', budget_tokens: budget };
  return { thinking, effort: sendEffort, maxTokens: max, on: true };
}
