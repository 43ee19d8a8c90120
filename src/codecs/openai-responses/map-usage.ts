// IR usage → Responses usage (mapping.md §10) as JSON text. The IR already counts like OpenAI: input
// includes cached tokens, output includes reasoning; total is always input + output.
import type { Usage } from '../../ir/types.js';

export function usageJson(u: Usage): string {
  return (
    '{"input_tokens":' + u.inputTokens +
    ',"input_tokens_details":{"cached_tokens":' + u.cacheReadTokens +
    (u.cacheWriteTokens > 0 ? ',"cache_write_tokens":' + u.cacheWriteTokens : '') +
    '},"output_tokens":' + u.outputTokens +
    ',"output_tokens_details":{"reasoning_tokens":' + u.reasoningTokens +
    '},"total_tokens":' + (u.inputTokens + u.outputTokens) + '}'
  );
}
