// Responses `item_reference` inputs (`{"type":"item_reference","id":…}` or the bare `{"id":…}`): what
// counts as one, the per-request cap, and the errors that name them. Clients with `store` on (the
// Vercel AI SDK's default) send earlier turns back this way and expect the server to remember them.
import { GatewayError } from '../errors.js';

/**
 * References one request may carry. OpenAI bounds a request's input items too; a thousand is far
 * beyond any real conversation's turns (the Vercel AI SDK sends one per earlier item) and keeps the
 * store reads of one request bounded.
 */
export const MAX_ITEM_REFERENCES = 1000;

/** True for an input entry that names a stored item instead of carrying it. */
export function isItemReference(entry: unknown): entry is { id: string } {
  if (entry === null || typeof entry !== 'object') return false;
  const e = entry as Record<string, unknown>;
  if (typeof e.id !== 'string') return false;
  // A message item may omit `type` too, but always has a role.
  return e.type === 'item_reference' || (e.type == null && !('role' in e));
}

/** Indexes of the references in `input`, or undefined when it holds none (the common case). A count
 * beyond MAX_ITEM_REFERENCES is a 400 naming `input`, before any of them is looked up. */
export function referenceIndexes(input: unknown): number[] | undefined {
  if (!Array.isArray(input)) return undefined;
  let indexes: number[] | undefined;
  for (let i = 0; i < input.length; i++) {
    if (!isItemReference(input[i])) continue;
    (indexes ??= []).push(i);
    if (indexes.length > MAX_ITEM_REFERENCES) {
      throw new GatewayError('invalid_request', `input: too many item references (more than ${MAX_ITEM_REFERENCES}); send the items themselves or continue with previous_response_id.`, {
        param: 'input',
        code: 'invalid_value',
      });
    }
  }
  return indexes;
}

/** An id the store has no item for (also another key's: the same answer, no existence oracle). */
export function itemNotFound(id: string, index: number): GatewayError {
  const param = 'input[' + index + ']';
  return new GatewayError('invalid_request', `Item with id '${id}' not found (${param}).`, { param, code: 'invalid_value' });
}

/** Another key's item on a plan that forwards unknown references: the answer OpenAI gives for an item
 * it does not have (404, `input`), so the refusal cannot be told from OpenAI's own. */
export function itemNotFoundUpstream(id: string): GatewayError {
  return new GatewayError('not_found', `Item with id '${id}' not found.`, { param: 'input' });
}
