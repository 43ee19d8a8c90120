// Responses `item_reference` inputs (`{"type":"item_reference","id":…}` or the bare `{"id":…}`) replaced
// by the stored output items they name, before the body is decoded. Clients with `store` on (the Vercel
// AI SDK's default) send earlier turns back this way and expect the server to remember them.
import { GatewayError } from '../errors.js';

/** A stored output item of an earlier response (wire JSON), or undefined when there is none. */
export type ItemLookup = (id: string) => Promise<Record<string, unknown> | undefined>;

/** True for an input entry that names a stored item instead of carrying it. */
export function isItemReference(entry: unknown): entry is { id: string } {
  if (entry === null || typeof entry !== 'object') return false;
  const e = entry as Record<string, unknown>;
  if (typeof e.id !== 'string') return false;
  // A message item may omit `type` too, but always has a role.
  return e.type === 'item_reference' || (e.type == null && !('role' in e));
}

/**
 * The input with every reference replaced by its stored item, or undefined when it holds none (the
 * common case: no copy). All lookups run at once. An id without a stored item is a 400 naming
 * `input[i]`, unless `forwardUnresolved` (every target resolves its own items): then the reference
 * stays as it is, for the upstream.
 */
export async function resolveItemReferences(
  input: unknown,
  lookup: ItemLookup,
  forwardUnresolved: boolean,
): Promise<unknown[] | undefined> {
  if (!Array.isArray(input)) return undefined;
  let indexes: number[] | undefined;
  for (let i = 0; i < input.length; i++) if (isItemReference(input[i])) (indexes ??= []).push(i);
  if (indexes === undefined) return undefined;
  const found = await Promise.all(indexes.map((i) => lookup((input[i] as { id: string }).id)));
  const out = input.slice();
  for (let k = 0; k < indexes.length; k++) {
    const i = indexes[k]!;
    const item = found[k];
    if (item !== undefined) out[i] = item;
    else if (!forwardUnresolved) throw notFound((input[i] as { id: string }).id, i);
  }
  return out;
}

function notFound(id: string, index: number): GatewayError {
  const param = 'input[' + index + ']';
  return new GatewayError('invalid_request', `Item with id '${id}' not found (${param}).`, { param, code: 'invalid_value' });
}
