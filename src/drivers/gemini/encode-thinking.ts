// IR reasoning request → Gemini `thinkingConfig` (gemini.md §5, mapping.md §16.5). Gemini 3 models take a
// `thinkingLevel`, Gemini 2.5 a `thinkingBudget` in tokens; efforts and Anthropic budgets map by size.
// Thought summaries are asked for (`includeThoughts`) whenever the caller asked for reasoning and did not
// ask to omit it; signatures come back either way.
import type { ReasoningEffort, ReasoningRequest, Warning } from '../../ir/types.js';
import type { GeminiThinkingConfig, GeminiThinkingLevel } from '../../protocols/gemini/request.js';

/** Budgets per effort for the 2.5 generation (Flash allows 0–24576, Pro 128–32768). */
const BUDGET: Record<Exclude<ReasoningEffort, 'none'>, number> = { minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: 32768 };
const LEVEL: Record<Exclude<ReasoningEffort, 'none'>, GeminiThinkingLevel> = { minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH', xhigh: 'HIGH', max: 'HIGH' };

/** Gemini 3 and later take levels (and check thought signatures); earlier models take budgets. */
export function takesThinkingLevel(model: string): boolean {
  const m = /gemini-(\d+)/.exec(model);
  return m !== null && Number(m[1]) >= 3;
}

function levelForBudget(budget: number): GeminiThinkingLevel {
  if (budget <= 2048) return 'LOW';
  if (budget <= 8192) return 'MEDIUM';
  return 'HIGH';
}

export function thinkingConfig(reasoning: ReasoningRequest | undefined, model: string, warnings: Warning[]): GeminiThinkingConfig | undefined {
  if (!reasoning) return undefined;
  const levels = takesThinkingLevel(model);
  if (reasoning.mode === 'disabled' || reasoning.effort === 'none') {
    if (levels) {
      // Gemini 3 always thinks; the least it does is MINIMAL (Flash) or LOW (Pro).
      warnings.push({ field: 'reasoning', message: 'Gemini 3 models cannot turn thinking off; the lowest thinking level was asked for' });
      return { thinkingLevel: /flash/.test(model) ? 'MINIMAL' : 'LOW' };
    }
    return { thinkingBudget: 0 };
  }
  const config: GeminiThinkingConfig = {};
  if (reasoning.display !== 'omitted') config.includeThoughts = true;
  const effort = reasoning.effort;
  const budget = reasoning.budgetTokens;
  if (effort !== undefined) {
    if (levels) config.thinkingLevel = LEVEL[effort];
    else config.thinkingBudget = BUDGET[effort];
  } else if (budget !== undefined) {
    if (levels) config.thinkingLevel = levelForBudget(budget);
    else config.thinkingBudget = budget;
  } else if (!levels && reasoning.mode === 'adaptive') {
    config.thinkingBudget = -1; // dynamic
  }
  return config;
}
