// The Responses door's step before decoding: swap `item_reference` inputs for the caller's stored
// output items. A plan whose every target is an OpenAI Responses deployment forwards the references it
// cannot resolve (OpenAI resolves its own items); any other plan needs the items themselves.
import type { RoutePlan } from '../router/model-table.js';
import { resolveItemReferences } from './resolve-item-references.js';

/** The owner of what an open gateway (no keys configured) stores. */
export const ANONYMOUS_OWNER = '';

export interface ItemSource {
  getItem(itemId: string, owner: string): Promise<Record<string, unknown> | undefined>;
}

/** The body to decode and forward: the caller's own unless its input held references. */
export async function expandItemReferences(
  protocol: string,
  body: Record<string, unknown>,
  resolvePlan: (model: string) => RoutePlan | undefined,
  items: ItemSource,
  owner: string | undefined,
): Promise<Record<string, unknown>> {
  if (protocol !== 'responses' || body === null || typeof body !== 'object' || !Array.isArray(body.input)) return body;
  const who = owner ?? ANONYMOUS_OWNER;
  // An unknown model keeps its references: the 404 naming the model is the more useful answer.
  const plan = typeof body.model === 'string' ? resolvePlan(body.model) : undefined;
  const forward = plan === undefined || plan.targets.every((t) => t.provider.protocol === 'responses');
  const input = await resolveItemReferences(body.input, (id) => items.getItem(id, who), forward);
  return input === undefined ? body : { ...body, input };
}
