// Gemini `usageMetadata` → IR usage (gemini.md §10, mapping.md §16.7). The prompt count includes cached
// tokens (the IR's convention too); `candidatesTokenCount` excludes thoughts, which the IR counts as output.
import type { Usage } from '../../ir/types.js';
import type { GeminiUsageMetadata } from '../../protocols/gemini/response.js';

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** The IR usage of `u`, written into `into` when given (a stream's decoder reuses one object). */
export function mapGeminiUsage(u: GeminiUsageMetadata, into?: Usage): Usage {
  const thoughts = count(u.thoughtsTokenCount);
  // Tool-use prompt tokens (server-side tools' results) are billed as input too.
  const inputTokens = count(u.promptTokenCount) + count(u.toolUsePromptTokenCount);
  const cacheReadTokens = count(u.cachedContentTokenCount);
  const outputTokens = count(u.candidatesTokenCount) + thoughts;
  if (!into) return { inputTokens, cacheReadTokens, cacheWriteTokens: 0, outputTokens, reasoningTokens: thoughts };
  into.inputTokens = inputTokens;
  into.cacheReadTokens = cacheReadTokens;
  into.cacheWriteTokens = 0;
  into.outputTokens = outputTokens;
  into.reasoningTokens = thoughts;
  return into;
}
