// A request's `input` as the list `GET /v1/responses/{id}/input_items` returns: a string becomes one
// user message; every item gets an id when it has none (OpenAI lists ids the caller never sent).
import { randomBytes } from 'node:crypto';
import type { WireItem } from './stored-response.js';

// A random per-process prefix and a counter (24 hex digits, as before): unique without a crypto call
// per item (three calls were ~2 % of a stored request's CPU).
const ID_PREFIX = randomBytes(8).toString('hex');
let idCounter = 0;

function newItemId(type: string | undefined): string {
  const prefix = type === undefined || type === 'message' ? 'msg_' : 'item_';
  idCounter = (idCounter + 1) % 0x100000000;
  return prefix + ID_PREFIX + idCounter.toString(16).padStart(8, '0');
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
