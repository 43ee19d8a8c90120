// IR finish → the Responses terminal status (mapping.md §9), and stream error kinds → the codes a
// `response.failed` carries (mapping.md §14).
import type { FinishReason } from '../../ir/types.js';

export interface Terminal {
  status: 'completed' | 'incomplete';
  /** `incomplete_details` as JSON text. */
  incompleteJson: string;
}

const COMPLETED: Terminal = { status: 'completed', incompleteJson: 'null' };
const MAX_OUTPUT: Terminal = { status: 'incomplete', incompleteJson: '{"reason":"max_output_tokens"}' };
const CONTENT_FILTER: Terminal = { status: 'incomplete', incompleteJson: '{"reason":"content_filter"}' };

export function terminalFor(reason: FinishReason): Terminal {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'tool_use':
    case 'pause_turn':
    case 'other':
      return COMPLETED;
    case 'max_tokens':
    case 'context_overflow':
      return MAX_OUTPUT;
    case 'refusal':
      return CONTENT_FILTER;
    default: {
      const never: never = reason;
      return never;
    }
  }
}

/** `response.failed` `error.code`: the two a client can act on, else server_error. */
export function failedCodeFor(kind: string): string {
  if (kind === 'rate_limit') return 'rate_limit_exceeded';
  if (kind === 'context_overflow') return 'context_length_exceeded';
  return 'server_error';
}

/** The nested `error.type` of the in-stream error event (same choice as the pass-through relay). */
export function streamErrorTypeFor(kind: string): string {
  if (kind === 'rate_limit') return 'rate_limit_error';
  if (kind === 'context_overflow') return 'invalid_request_error';
  return 'server_error';
}
