// A request's `input` as the list `GET /v1/responses/{id}/input_items` returns: a string becomes one
// user message; every item gets an id when it has none (OpenAI lists ids the caller never sent).
import { randomBytes } from 'node:crypto';
import type { WireItem } from './stored-response.js';

function newItemId(type: string | undefined): string {
  const prefix = type === undefined || type === 'message' ? 'msg_' : 'item_';
  return prefix + randomBytes(12).toString('hex');
}

/** The request's `input` (string or item array) as stored input items. Does not modify the input. */
export function inputItemsOf(input: unknown): WireItem[] {
  if (typeof input === 'string') {
    return [{ id: newItemId('message'), type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  }
  if (!Array.isArray(input)) return [];
  const out: WireItem[] = [];
  for (const item of input) {
    if (item === null || typeof item !== 'object') continue;
    const obj = item as Record<string, unknown>;
    const type = typeof obj.type === 'string' ? obj.type : obj.role !== undefined ? 'message' : undefined;
    // Easy-message form {role, content: "text"} is listed the way OpenAI lists it: typed content parts.
    const content =
      type === 'message' && typeof obj.content === 'string'
        ? [{ type: obj.role === 'assistant' ? 'output_text' : 'input_text', text: obj.content }]
        : obj.content;
    out.push({
      ...obj,
      ...(type !== undefined ? { type } : {}),
      ...(content !== undefined ? { content } : {}),
      id: typeof obj.id === 'string' && obj.id !== '' ? obj.id : newItemId(type),
    } as WireItem);
  }
  return out;
}
