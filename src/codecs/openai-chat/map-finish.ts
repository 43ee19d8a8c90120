// IR finish → Chat `finish_reason` (chat-completions.md §4.1, mapping.md §9), exhaustively. A turn
// that made tool calls always says `tool_calls`: clients loop on it, whatever the upstream called it.
import type { FinishReason } from '../../ir/types.js';

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export function finishReasonFor(reason: FinishReason, hadToolCalls: boolean): ChatFinishReason {
  if (hadToolCalls) return 'tool_calls';
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    // A paused server-tool turn is over for this request; the caller may continue it.
    case 'pause_turn':
    case 'other':
      return 'stop';
    case 'max_tokens':
    case 'context_overflow':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default: {
      const never: never = reason;
      return never;
    }
  }
}
