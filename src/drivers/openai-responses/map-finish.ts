// Responses terminal status → IR finish (mapping.md §9). Calls are items, so a completed response
// that produced one means the caller must run tools.
import type { Finish } from '../../ir/types.js';

export function finishForCompleted(hadToolCalls: boolean, hadRefusal: boolean): Finish {
  if (hadToolCalls) return { reason: 'tool_use', raw: 'completed' };
  if (hadRefusal) return { reason: 'refusal', raw: 'completed' };
  return { reason: 'end_turn', raw: 'completed' };
}

/** `reason` is `incomplete_details.reason`; `raw` keeps it (or `incomplete` when the upstream gave none). */
export function finishForIncomplete(reason: string | null | undefined): Finish {
  switch (reason) {
    case 'max_output_tokens':
      return { reason: 'max_tokens', raw: reason };
    case 'content_filter':
      return { reason: 'refusal', raw: reason };
    default:
      // max_messages, steered (SDK 7), anything newer: the model stopped without a limit being hit.
      return { reason: 'end_turn', raw: typeof reason === 'string' && reason !== '' ? reason : 'incomplete' };
  }
}
