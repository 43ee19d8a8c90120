// Responses usage → IR usage (mapping.md §10). Both count cached tokens inside input_tokens and
// reasoning inside output_tokens, so the numbers carry over; null or missing counters become 0.
import type { Usage } from '../../ir/types.js';
import type { UsageWire } from '../../protocols/openai-responses/upstream-response.js';

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function mapResponsesUsage(usage: UsageWire | null | undefined): Usage {
  if (!usage) return { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 };
  const input = usage.input_tokens_details;
  return {
    inputTokens: count(usage.input_tokens),
    cacheReadTokens: count(input?.cached_tokens),
    cacheWriteTokens: count(input?.cache_write_tokens),
    outputTokens: count(usage.output_tokens),
    reasoningTokens: count(usage.output_tokens_details?.reasoning_tokens),
  };
}
