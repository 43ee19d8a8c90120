// A request's `input` as the list `GET /v1/responses/{id}/input_items` returns: a string becomes one
// user message; every item gets an id when it has none (OpenAI lists ids the caller never sent), the
// same on every read of the record.
/** A Responses wire item (input or output), as JSON. Every stored item has an `id`. */
export type WireItem = { id: string; type?: string } & Record<string, unknown>;

/** An id for the item at `index` that came without one (stored-response.ts derives it from the response id). */
export type ItemIdFor = (type: string | undefined, index: number) => string;

/** The request's `input` (string or item array) as stored input items. Does not modify the input. */
export function inputItemsOf(input: unknown, idFor: ItemIdFor): WireItem[] {
  if (typeof input === 'string') {
    return [{ id: idFor('message', 0), type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  }
  if (!Array.isArray(input)) return [];
  const out: WireItem[] = [];
  for (let index = 0; index < input.length; index++) {
    const item: unknown = input[index];
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
      id: typeof obj.id === 'string' && obj.id !== '' ? obj.id : idFor(type, index),
    } as WireItem);
  }
  return out;
}
