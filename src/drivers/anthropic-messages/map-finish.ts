// Anthropic `stop_reason` → IR finish (messages.md §10, mapping.md §9). Unknown values map to `other`
// and keep the raw string.
import type { Finish } from '../../ir/types.js';

export function mapStopReason(raw: string | null | undefined, stopSequence: string | null | undefined): Finish {
  const value = typeof raw === 'string' ? raw : null;
  switch (value) {
    case 'end_turn':
    case 'max_tokens':
    case 'tool_use':
    case 'pause_turn':
    case 'refusal':
      return { reason: value, raw: value };
    case 'stop_sequence':
      return { reason: 'stop_sequence', raw: value, stopSequence: typeof stopSequence === 'string' ? stopSequence : null };
    case 'model_context_window_exceeded':
      return { reason: 'context_overflow', raw: value };
    case 'compaction':
      // Beta compaction finished the turn normally; the caller only needs to know it ended.
      return { reason: 'end_turn', raw: value };
    default:
      return { reason: 'other', raw: value };
  }
}
