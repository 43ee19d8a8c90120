// IrResult → the Messages response object (messages.md §9). The model is the caller's own name; empty
// text parts are left out (a client echoing the turn back would get a 400 for them), like the stream.
import { toolInput } from '../../ir/tool-arguments.js';
import type { IrResult } from '../../ir/types.js';
import type { MessageResponseBody, OutputBlockBody } from '../../protocols/anthropic-messages/response.js';
import type { EncodeContext } from '../types.js';
import { stopReasonFor, stopSequenceFor } from './map-finish.js';
import { messagesUsage } from './map-usage.js';
import { reasoningBlock } from './reasoning-block.js';

export function resultToMessage(result: IrResult, ctx: EncodeContext): MessageResponseBody {
  const content: OutputBlockBody[] = [];
  for (const part of result.content) {
    switch (part.type) {
      case 'text':
        if (part.text !== '') content.push({ type: 'text', text: part.text });
        break;
      case 'reasoning': {
        const block = reasoningBlock(part.text, part.carry);
        if (block) content.push(block);
        break;
      }
      case 'tool-call':
        content.push({
          type: 'tool_use',
          id: part.id,
          name: part.name,
          input: part.kind === 'custom' ? { input: part.arguments } : toolInput(part.arguments),
        });
        break;
      default: {
        const never: never = part;
        return never;
      }
    }
  }
  return {
    id: ctx.responseId,
    type: 'message',
    role: 'assistant',
    model: ctx.request.model,
    content,
    stop_reason: stopReasonFor(result.finish.reason),
    stop_sequence: stopSequenceFor(result.finish),
    usage: messagesUsage(result.usage),
  };
}

export function encodeResult(result: IrResult, ctx: EncodeContext): string {
  return JSON.stringify(resultToMessage(result, ctx));
}
