// Gemini `usageMetadata` → IR usage (gemini.md §10, mapping.md §16.7). The prompt count includes cached
// tokens (the IR's convention too); `candidatesTokenCount` excludes thoughts, which the IR counts as output.
import type { Usage } from '../../ir/types.js';
import type { GeminiUsageMetadata } from '../../protocols/gemini/response.js';

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function mapGeminiUsage(u: GeminiUsageMetadata): Usage {
  const thoughts = count(u.thoughtsTokenCount);
  return {
    // Tool-use prompt tokens (server-side tools' results) are billed as input too.
    inputTokens: count(u.promptTokenCount) + count(u.toolUsePromptTokenCount),
    cacheReadTokens: count(u.cachedContentTokenCount),
    cacheWriteTokens: 0,
    outputTokens: count(u.candidatesTokenCount) + thoughts,
    reasoningTokens: thoughts,
  };
}
