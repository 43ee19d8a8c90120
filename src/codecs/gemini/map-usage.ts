// IR usage → Gemini `usageMetadata` (gemini.md §10): the prompt count includes cached tokens, the
// candidates count excludes thoughts. Zero thought and cache counts are left out, as Google does.
import type { Usage } from '../../ir/types.js';

export function usageMetadataJson(u: Usage): string {
  const thoughts = u.reasoningTokens;
  const candidates = Math.max(0, u.outputTokens - thoughts);
  let json = '{"promptTokenCount":' + u.inputTokens + ',"candidatesTokenCount":' + candidates;
  if (thoughts > 0) json += ',"thoughtsTokenCount":' + thoughts;
  if (u.cacheReadTokens > 0) json += ',"cachedContentTokenCount":' + u.cacheReadTokens;
  return json + ',"totalTokenCount":' + (u.inputTokens + u.outputTokens) + '}';
}
