// The one place that picks a backend from config. Callers: main/app at start-up, then
// `connectStateStore` to honour `state.required`.
import { resolve } from 'node:path';
import type { GatewayConfig } from '../config/types.js';
import { FileStateStore } from './file-store.js';
import { MemoryStateStore } from './memory-store.js';
import type { StoreOptions } from './options.js';
import { RedisStateStore } from './redis-store.js';
import { StateUnavailableError, type DocumentNamespace, type StateStore } from './types.js';

/** The namespace the stored Responses live in. */
export const RESPONSES_NAMESPACE = 'responses';

export function stateNamespaces(config: Pick<GatewayConfig, 'responsesStore'>): DocumentNamespace[] {
  const { maxBytes, ownerShare } = config.responsesStore;
  const share = ownerShare > 0 && ownerShare <= 1 ? ownerShare : 1;
  return [{ name: RESPONSES_NAMESPACE, maxBytes, ownerMaxBytes: Math.floor(maxBytes * share) }];
}

export function createStateStore(config: Pick<GatewayConfig, 'state' | 'responsesStore'>, extra: Omit<StoreOptions, 'namespaces'> = {}): StateStore {
  const options: StoreOptions = { ...extra, namespaces: stateNamespaces(config) };
  const s = config.state;
  switch (s.backend) {
    case 'memory':
      return new MemoryStateStore(options);
    case 'file':
      return new FileStateStore({ ...options, path: resolve(s.path) });
    case 'redis':
      return new RedisStateStore({ ...options, url: s.url, keyPrefix: s.keyPrefix, opTimeoutMs: s.opTimeoutMs });
    default: {
      const never: never = s.backend;
      throw new Error(`unknown state backend ${String(never)}`);
    }
  }
}

/**
 * Start-up check: resolves when the backend answers. When it does not, rejects with a message that
 * says what to fix — unless `state.required` is false, in which case `onUnavailable` hears about it and
 * the store keeps trying by itself (stateful requests get 503 until it answers).
 */
export async function connectStateStore(
  store: StateStore,
  config: Pick<GatewayConfig, 'state'>,
  onUnavailable?: (err: StateUnavailableError) => void,
): Promise<void> {
  try {
    await store.ping();
  } catch (err) {
    const e = err instanceof StateUnavailableError ? err : new StateUnavailableError('ping', String(err), { cause: err });
    if (!config.state.required) {
      onUnavailable?.(e);
      return;
    }
    throw new StateUnavailableError(
      'ping',
      `${e.message} — the gateway cannot start without its state store (set state.required: false to start anyway)`,
      { cause: e },
    );
  }
}
