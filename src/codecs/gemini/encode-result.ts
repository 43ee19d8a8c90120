// IR result → one GenerateContentResponse (gemini.md §8): `candidates[0]` with the model's parts, the
// finish reason, usage, the caller's model name as `modelVersion`, the gateway's response id.
import type { IrResult } from '../../ir/types.js';
import type { EncodeContext } from '../types.js';
import { callPartJson, ChunkShape, showsThoughts, signatureOf, textPartJson, thoughtPartJson } from './answer-parts.js';
import { geminiFinishReason } from './map-finish.js';
import { usageMetadataJson } from './map-usage.js';

export function encodeResult(result: IrResult, ctx: EncodeContext): string {
  const show = showsThoughts(ctx.request);
  const parts: string[] = [];
  let pending: string | undefined;
  for (const part of result.content) {
    switch (part.type) {
      case 'reasoning': {
        if (pending !== undefined) parts.push(textPartJson('', pending));
        if (show && part.text !== '') parts.push(thoughtPartJson(part.text));
        pending = signatureOf(part.carry);
        break;
      }
      case 'text':
        if (part.text === '' && pending === undefined) break;
        parts.push(textPartJson(part.text, pending));
        pending = undefined;
        break;
      case 'tool-call':
        parts.push(callPartJson(part.id, part.name, part.arguments, pending));
        pending = undefined;
        break;
      default: {
        const never: never = part;
        return never;
      }
    }
  }
  if (pending !== undefined) parts.push(textPartJson('', pending));
  if (parts.length === 0) parts.push(textPartJson('', undefined));
  const shape = new ChunkShape(ctx.request.model, ctx.responseId);
  return shape.final(parts.join(','), geminiFinishReason(result.finish), usageMetadataJson(result.usage));
}
