// Chat Completions usage → IR usage (mapping.md §10). Both sides count cached tokens inside the prompt
// total, so no subtraction here; DeepSeek reports cache hits under its own name.
import type { Usage } from '../../ir/types.js';
import type { ChatUsage } from '../../protocols/openai-chat/response.js';

function count(value: number | null | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function mapChatUsage(usage: ChatUsage): Usage {
  return {
    inputTokens: count(usage.prompt_tokens) ?? 0,
    cacheReadTokens: count(usage.prompt_tokens_details?.cached_tokens) ?? count(usage.prompt_cache_hit_tokens) ?? 0,
    cacheWriteTokens: count(usage.prompt_tokens_details?.cache_write_tokens) ?? 0,
    outputTokens: count(usage.completion_tokens) ?? 0,
    reasoningTokens: count(usage.completion_tokens_details?.reasoning_tokens) ?? 0,
  };
}
