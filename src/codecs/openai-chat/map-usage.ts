// IR usage → the Chat `usage` object (chat-completions.md §4): prompt tokens include cached ones,
// completion tokens include reasoning ones, and total is their sum (some clients check it).
import type { Usage } from '../../ir/types.js';

export function chatUsageJson(u: Usage): string {
  return (
    '{"prompt_tokens":' + u.inputTokens +
    ',"completion_tokens":' + u.outputTokens +
    ',"total_tokens":' + (u.inputTokens + u.outputTokens) +
    ',"prompt_tokens_details":{"cached_tokens":' + u.cacheReadTokens +
    (u.cacheWriteTokens > 0 ? ',"cache_write_tokens":' + u.cacheWriteTokens : '') +
    '},"completion_tokens_details":{"reasoning_tokens":' + u.reasoningTokens + '}}'
  );
}
