// Gemini `finishReason` → IR finish (gemini.md §9, mapping.md §16.6). Every documented value is listed;
// an unknown one is a natural end that keeps its raw value. Two values mean the generation failed and
// produced nothing usable: they become an error the router may retry.
import type { Finish } from '../../ir/types.js';

export type GeminiFinish = { finish: Finish } | { failure: string };

export function mapGeminiFinish(raw: string, hadCalls: boolean, finishMessage: string | undefined): GeminiFinish {
  switch (raw) {
    case 'STOP':
      // Gemini says STOP after function calls, and after a stop sequence (it does not say which).
      return { finish: { reason: hadCalls ? 'tool_use' : 'end_turn', raw } };
    case 'MAX_TOKENS':
    case 'CONTINUATION':
      return { finish: { reason: 'max_tokens', raw } };
    case 'SAFETY':
    case 'RECITATION':
    case 'LANGUAGE':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
      return { finish: { reason: 'refusal', raw } };
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
      return { failure: `Gemini ended the generation with ${raw}` + (finishMessage ? `: ${finishMessage}` : '') };
    case 'TOO_MANY_TOOL_CALLS':
    case 'OTHER':
    case 'NO_IMAGE':
    case 'IMAGE_OTHER':
    case 'FINISH_REASON_UNSPECIFIED':
    default:
      return { finish: { reason: hadCalls ? 'tool_use' : 'other', raw } };
  }
}
