// The Responses door's step before decoding: swap `item_reference` inputs for the caller's stored
// output items. References the gateway cannot resolve are kept for the plan's OpenAI Responses
// deployments (OpenAI resolves its own items); a plan without one refuses them at once, and a
// fallback from OpenAI to another protocol refuses them before that attempt (assertResolvedFor).
import { GatewayError } from '../errors.js';
import type { RoutePlan } from '../router/model-table.js';
import { StateUnavailableError } from '../state/types.js';
import { isItemReference, resolveItemReferences } from './resolve-item-references.js';

/** The owner of what an open gateway (no keys configured) stores. */
export const ANONYMOUS_OWNER = 'anonymous';

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
  const forward = plan === undefined || plan.targets.some((t) => t.provider.protocol === 'responses');
  // With the store away, a plan that can forward references lets OpenAI resolve them; one that cannot
  // gets the StateUnavailableError (a 503), not a 400 blaming the caller's ids.
  const lookup = (id: string) =>
    items.getItem(id, who).catch((err: unknown) => {
      if (forward && err instanceof StateUnavailableError) return undefined;
      throw err;
    });
  const input = await resolveItemReferences(body.input, lookup, forward);
  return input === undefined ? body : { ...body, input };
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
