// IrResult → the Responses response object (responses.md §8). Renders exactly what the stream encoder's
// terminal event carries for the same events: one item per non-empty text part, reasoning part and
// tool call, ids derived from the output index, and the last item marked incomplete when the answer
// was cut short.
import type { IrResult, OutputPart } from '../../ir/types.js';
import type { EncodeContext } from '../types.js';
import { terminalFor } from './map-finish.js';
import { usageJson } from './map-usage.js';
import {
  customCallItemJson,
  encryptedContentJson,
  functionArguments,
  functionCallItemJson,
  idStem,
  itemId,
  messageItemJson,
  outputTextPartJson,
  reasoningItemJson,
  refusalPartJson,
  summaryJson,
  type ItemStatus,
} from './output-items.js';
import { completedAtNow, responseJson, responseShape } from './response-object.js';

export function encodeResult(result: IrResult, ctx: EncodeContext): string {
  const shape = responseShape(ctx);
  const terminal = terminalFor(result.finish.reason);
  const stem = idStem(ctx.responseId);
  // Empty text parts never become items (the stream opens a message on its first text).
  let last = -1;
  for (let i = 0; i < result.content.length; i++) if (emitted(result.content[i]!)) last = i;
  let output = '[';
  let index = 0;
  for (let i = 0; i <= last; i++) {
    const part = result.content[i]!;
    if (!emitted(part)) continue;
    const status: ItemStatus = i === last ? terminal.status === 'incomplete' ? 'incomplete' : 'completed' : 'completed';
    output += (index === 0 ? '' : ',') + itemJson(part, stem, index, status, shape.summaryAsked);
    index++;
  }
  output += ']';
  const completedAt = ctx.completedAt ?? completedAtNow(ctx.createdAt);
  return responseJson(shape, terminal.status, completedAt, 'null', terminal.incompleteJson, output, usageJson(result.usage));
}

/** The ids encodeResult gives the result's output items, in order, without rendering them (the
 * Responses store claims them: http/stored-answer.ts). */
export function resultItemIds(result: IrResult, responseId: string): string[] {
  const stem = idStem(responseId);
  const ids: string[] = [];
  for (const part of result.content) {
    if (!emitted(part)) continue;
    const prefix = part.type === 'text' ? 'msg' : part.type === 'reasoning' ? 'rs' : part.kind === 'custom' ? 'ctc' : 'fc';
    ids.push(itemId(prefix, stem, ids.length));
  }
  return ids;
}

function emitted(part: OutputPart): boolean {
  return part.type !== 'text' || part.text !== '';
}

function itemJson(part: OutputPart, stem: string, index: number, status: ItemStatus, summaryAsked: boolean): string {
  switch (part.type) {
    case 'text': {
      const idJson = JSON.stringify(itemId('msg', stem, index));
      const textJson = JSON.stringify(part.text);
      return messageItemJson(idJson, status, part.refusal ? refusalPartJson(textJson) : outputTextPartJson(textJson));
    }
    case 'reasoning': {
      const id = itemId('rs', stem, index);
      return reasoningItemJson(
        JSON.stringify(id),
        summaryJson(summaryAsked, part.text, part.carry),
        encryptedContentJson(id, part.text, part.carry),
        status === 'incomplete',
      );
    }
    case 'tool-call': {
      const ns = part.namespace === undefined ? undefined : JSON.stringify(part.namespace);
      if (part.kind === 'custom') {
        return customCallItemJson(
          JSON.stringify(itemId('ctc', stem, index)),
          status,
          JSON.stringify(part.id),
          JSON.stringify(part.name),
          JSON.stringify(part.arguments),
          ns,
        );
      }
      return functionCallItemJson(
        JSON.stringify(itemId('fc', stem, index)),
        status,
        JSON.stringify(functionArguments(part.arguments)),
        JSON.stringify(part.id),
        JSON.stringify(part.name),
        ns,
      );
    }
    default: {
      const never: never = part;
      return never;
    }
  }
}
