// Usage as each vendor reports it → IR usage (for metrics and logs on the pass-through lane).
import type { Usage } from '../../ir/types.js';

interface AnthropicUsage {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/** Anthropic counts are cumulative and partial updates keep earlier non-null values. */
export function mergeAnthropicUsage(prev: Usage | undefined, u: AnthropicUsage | undefined | null): Usage | undefined {
  if (!u) return prev;
  const read = u.cache_read_input_tokens ?? (prev ? prev.cacheReadTokens : 0);
  const write = u.cache_creation_input_tokens ?? (prev ? prev.cacheWriteTokens : 0);
  const uncached = u.input_tokens ?? (prev ? prev.inputTokens - prev.cacheReadTokens - prev.cacheWriteTokens : 0);
  return {
    inputTokens: uncached + read + write,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    outputTokens: u.output_tokens ?? prev?.outputTokens ?? 0,
    reasoningTokens: u.output_tokens_details?.thinking_tokens ?? prev?.reasoningTokens ?? 0,
  };
}

interface OpenAiUsage {
  input_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  output_tokens?: number | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

export function responsesUsage(u: OpenAiUsage | undefined | null): Usage | undefined {
  if (!u) return undefined;
  return {
    inputTokens: u.input_tokens ?? 0,
    cacheReadTokens: u.input_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: u.input_tokens_details?.cache_write_tokens ?? 0,
    outputTokens: u.output_tokens ?? 0,
    reasoningTokens: u.output_tokens_details?.reasoning_tokens ?? 0,
  };
}
