// IR usage → Messages usage (mapping.md §10): Anthropic's `input_tokens` excludes cache reads and
// writes, the IR's includes them.
import type { Usage } from '../../ir/types.js';
import type { MessageUsageBody } from '../../protocols/anthropic-messages/response.js';

export function messagesUsage(u: Usage): MessageUsageBody {
  const usage: MessageUsageBody = {
    input_tokens: Math.max(0, u.inputTokens - u.cacheReadTokens - u.cacheWriteTokens),
    cache_creation_input_tokens: u.cacheWriteTokens,
    cache_read_input_tokens: u.cacheReadTokens,
    output_tokens: u.outputTokens,
  };
  if (u.reasoningTokens > 0) usage.output_tokens_details = { thinking_tokens: u.reasoningTokens };
  return usage;
}

const ZERO_USAGE_JSON = '{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}';

/** The usage object as JSON text (same keys, same order as `messagesUsage`). */
export function messagesUsageJson(u: Usage | undefined): string {
  if (u === undefined) return ZERO_USAGE_JSON;
  return JSON.stringify(messagesUsage(u));
}

/** message_start's usage before the upstream has counted: `inputTokens` estimated, nothing cached yet
 * known, nothing generated (mapping.md §15.53). */
export function startUsageEstimateJson(inputTokens: number): string {
  return '{"input_tokens":' + inputTokens + ',"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}';
}
