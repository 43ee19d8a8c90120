// IR finish → Gemini `finishReason` (gemini.md §9). Every IR reason is listed; a Gemini upstream's own
// raw value (a fallback answer translated back) is kept when it is one of Google's.
import type { Finish, FinishReason } from '../../ir/types.js';

const GEMINI_REASONS = new Set([
  'STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'LANGUAGE', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII',
  'MALFORMED_FUNCTION_CALL', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION', 'IMAGE_OTHER', 'NO_IMAGE',
  'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS',
]);

export function geminiFinishReason(finish: Finish): string {
  if (finish.raw !== null && GEMINI_REASONS.has(finish.raw)) return finish.raw;
  return byReason(finish.reason);
}

function byReason(reason: FinishReason): string {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'tool_use':
      // Gemini says STOP after function calls and after a stop sequence too.
      return 'STOP';
    case 'max_tokens':
    case 'context_overflow':
      return 'MAX_TOKENS';
    case 'refusal':
      return 'SAFETY';
    case 'pause_turn':
    case 'other':
      return 'OTHER';
    default: {
      const never: never = reason;
      return never;
    }
  }
}
