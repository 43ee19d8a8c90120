// The Responses door's step after admission: `item_reference` inputs swapped for the caller's stored
// output items, one read per distinct id. What the store does not have is kept for a plan with an
// OpenAI Responses deployment (OpenAI resolves its own items) unless its claim says it is another
// key's: that is refused, so another key's ids never reach OpenAI. A plan without one refuses unknown
// ids at once; a fallback from OpenAI to another protocol refuses them before that attempt
// (assertResolvedFor). A store that cannot be read rejects with StateUnavailableError (a 503):
// forwarding without the claim check would fail open.
import { GatewayError } from '../errors.js';
import { isItemReference, itemNotFound, itemNotFoundUpstream, referenceIndexes } from './resolve-item-references.js';

export interface ItemSource {
  /** This owner's stored items for distinct `ids`, in order; undefined where none. */
  findItems(ids: readonly string[], owner: string): Promise<(Record<string, unknown> | undefined)[]>;
  /** The keys that created items `ids` (their claims), in order; undefined where none did. */
  itemOwners(ids: readonly string[]): Promise<(string | undefined)[]>;
}

/** The body to decode and forward: the caller's own unless its input held references. */
export async function expandItemReferences(
  protocol: string,
  body: Record<string, unknown>,
  forwardUnresolved: boolean,
  items: ItemSource,
  owner: string,
): Promise<Record<string, unknown>> {
  if (protocol !== 'responses' || body === null || typeof body !== 'object') return body;
  const input = body.input;
  const indexes = referenceIndexes(input);
  if (indexes === undefined) return body;
  const entries = input as unknown[];
  // Distinct ids, first seen first: a body naming one item a thousand times reads it once.
  const firstAt = new Map<string, number>();
  for (const i of indexes) {
    const id = (entries[i] as { id: string }).id;
    if (!firstAt.has(id)) firstAt.set(id, i);
  }
  const ids = [...firstAt.keys()];
  const found = await items.findItems(ids, owner);
  const byId = new Map<string, Record<string, unknown>>();
  const missing: string[] = [];
  for (let k = 0; k < ids.length; k++) {
    const item = found[k];
    if (item !== undefined) byId.set(ids[k]!, item);
    else missing.push(ids[k]!);
  }
  if (missing.length > 0) {
    if (!forwardUnresolved) throw itemNotFound(missing[0]!, firstAt.get(missing[0]!)!);
    const owners = await items.itemOwners(missing);
    for (let k = 0; k < missing.length; k++) {
      if (owners[k] !== undefined && owners[k] !== owner) throw itemNotFoundUpstream(missing[k]!);
    }
  }
  if (byId.size === 0) return body;
  const out = entries.slice();
  for (const i of indexes) {
    const item = byId.get((entries[i] as { id: string }).id);
    if (item !== undefined) out[i] = item;
  }
  return { ...body, input: out };
}

/** Before admission, no state I/O: the number of references, within the cap (beyond it a 400 naming
 * `input`). 0 for other doors and bodies without references. */
export function countItemReferences(protocol: string, body: unknown): number {
  if (protocol !== 'responses' || body === null || typeof body !== 'object') return 0;
  return referenceIndexes((body as { input?: unknown }).input)?.length ?? 0;
}

/**
 * Before an attempt on a deployment that does not speak Responses: a reference still in the body was
 * kept for OpenAI and cannot be served here (the decoded turns do not hold it). A 400 naming it.
 */
export function assertResolvedFor(protocol: string, body: Record<string, unknown>, provider: string): void {
  if (protocol !== 'responses' || !Array.isArray(body.input)) return;
  const input = body.input as unknown[];
  for (let i = 0; i < input.length; i++) {
    if (!isItemReference(input[i])) continue;
    const param = 'input[' + i + ']';
    throw new GatewayError(
      'invalid_request',
      `Item with id '${(input[i] as { id: string }).id}' not found (${param}): only an OpenAI Responses deployment can resolve it, and this request is served by ${provider}. Send the item itself.`,
      { param, code: 'invalid_value' },
    );
  }
}
