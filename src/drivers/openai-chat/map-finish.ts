// Chat `finish_reason` → IR finish (mapping.md §9). Servers say `stop` even after emitting tool calls,
// and invent values (`eos`, `""`); only `error`/`abort` mean the generation failed.
import type { Finish } from '../../ir/types.js';

/** `undefined` when the upstream reported a failed generation (the caller must emit an error). */
export function mapFinishReason(raw: string | null, hadToolCalls: boolean): Finish | undefined {
  switch (raw) {
    case 'length':
      return { reason: 'max_tokens', raw };
    case 'content_filter':
      return { reason: 'refusal', raw };
    case 'tool_calls':
    case 'function_call':
      return { reason: 'tool_use', raw };
    case 'error':
    case 'abort':
      return undefined;
    default:
      // stop, eos, "", missing, anything new: a natural end, which with calls means the tools must run.
      return { reason: hadToolCalls ? 'tool_use' : 'end_turn', raw };
  }
}
