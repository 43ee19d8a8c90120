// IrResult → the `chat.completion` object (chat-completions.md §4): one choice, the caller's model
// name, text in `content` (null when the turn is only calls), a refusal in `refusal`, calls in
// `tool_calls` with the ids the caller echoes back, reasoning text in `reasoning_content` and its
// opaque state in `reasoning_details` (reasoning-details.ts).
import type { IrResult, OutputPart } from '../../ir/types.js';
import type { EncodeContext } from '../types.js';
import { finishReasonFor } from './map-finish.js';
import { chatUsageJson } from './map-usage.js';
import { reasoningDetail, type ReasoningDetail } from './reasoning-details.js';
import { toolCallJson } from './tool-call-json.js';

export function encodeResult(result: IrResult, ctx: EncodeContext): string {
  let content: string | null = null;
  let refusal: string | null = null;
  let reasoning = '';
  const calls: string[] = [];
  const details: ReasoningDetail[] = [];
  const parts = result.content;
  let answerStarted = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    switch (part.type) {
      case 'text':
        if (part.text === '') break;
        if (part.refusal) refusal = (refusal ?? '') + part.text;
        else content = (content ?? '') + part.text;
        answerStarted = true;
        break;
      case 'reasoning': {
        if (part.text !== '') reasoning += reasoning === '' ? part.text : '\n\n' + part.text;
        const d = reasoningDetail(part.text, part.carry, details.length, answerStarted ? nextCallId(parts, i) : undefined);
        if (d) details.push(d);
        break;
      }
      case 'tool-call':
        calls.push(toolCallJson(part));
        answerStarted = true;
        break;
      default: {
        const never: never = part;
        return never;
      }
    }
  }
  let message = '{"role":"assistant","content":' + JSON.stringify(content) + ',"refusal":' + JSON.stringify(refusal);
  if (calls.length > 0) message += ',"tool_calls":[' + calls.join(',') + ']';
  if (reasoning !== '') message += ',"reasoning_content":' + JSON.stringify(reasoning);
  if (details.length > 0) message += ',"reasoning_details":' + JSON.stringify(details);
  message += '}';
  return (
    '{"id":' + JSON.stringify(ctx.responseId) +
    ',"object":"chat.completion","created":' + ctx.createdAt +
    ',"model":' + JSON.stringify(ctx.request.model) +
    ',"choices":[{"index":0,"message":' + message +
    ',"logprobs":null,"finish_reason":"' + finishReasonFor(result.finish.reason, calls.length > 0) +
    '"}],"usage":' + chatUsageJson(result.usage) +
    ',"system_fingerprint":null}'
  );
}

/** The id of the first call after part `i`, if any. */
function nextCallId(parts: readonly OutputPart[], i: number): string | undefined {
  for (let j = i + 1; j < parts.length; j++) {
    const p = parts[j]!;
    if (p.type === 'tool-call') return p.id;
  }
  return undefined;
}
