// Upstream protocol → its driver.
import type { Protocol } from '../ir/types.js';
import { anthropicDriver } from './anthropic-messages/index.js';
import { chatDriver } from './openai-chat/index.js';
import { responsesDriver } from './openai-responses/index.js';
import type { Driver, DriverTarget } from './types.js';
import type { ProviderConfig } from '../config/types.js';

const DRIVERS: Record<Protocol, Driver> = {
  messages: anthropicDriver,
  responses: responsesDriver,
  chat: chatDriver,
};

export function driverFor(protocol: Protocol): Driver {
  return DRIVERS[protocol];
}

/** Round-robin over a provider's keys. */
const keyCursor = new WeakMap<ProviderConfig, number>();
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
  };
}
