// A route target → what a driver needs to address it: the upstream model, the next of the provider's
// keys (round-robin), the provider's static headers plus any forwarded caller headers, and the
// provider's driver options. Lives here so drivers never read configuration.
import type { ProviderConfig } from '../config/types.js';
import type { DriverTarget } from '../drivers/types.js';

const keyCursor = new WeakMap<ProviderConfig, number>();

/** Round-robin over a provider's keys. */
export function nextApiKey(provider: ProviderConfig): string | undefined {
  const keys = provider.apiKeys;
  if (keys.length <= 1) return keys[0];
  const i = keyCursor.get(provider) ?? 0;
  keyCursor.set(provider, (i + 1) % keys.length);
  return keys[i % keys.length];
}

export function driverTarget(provider: ProviderConfig, model: string, extraHeaders?: Record<string, string>): DriverTarget {
  return {
    model,
    apiKey: nextApiKey(provider),
    headers: extraHeaders ? { ...provider.headers, ...extraHeaders } : provider.headers,
    options: provider.driverOptions,
    mediaUrls: provider.mediaUrls,
  };
}
