// IR finish → Messages `stop_reason` / `stop_sequence` (messages.md §10). Never null on a finished answer.
import type { Finish, FinishReason } from '../../ir/types.js';
import type { StopReasonValue } from '../../protocols/anthropic-messages/response.js';

export function stopReasonFor(reason: FinishReason): StopReasonValue {
  switch (reason) {
    case 'end_turn':
    case 'max_tokens':
    case 'stop_sequence':
    case 'tool_use':
    case 'pause_turn':
    case 'refusal':
      return reason;
    case 'context_overflow':
      return 'model_context_window_exceeded';
    case 'other':
      return 'end_turn';
    default: {
      const never: never = reason;
      return never;
    }
  }
}

/** The matched stop sequence, only when the turn actually stopped on one. */
export function stopSequenceFor(finish: Finish): string | null {
  return finish.reason === 'stop_sequence' ? (finish.stopSequence ?? null) : null;
}
