// A provider's platform, made once per resolved provider (a reload makes new providers, and with them
// new platforms). Each platform loads its cloud SDK lazily, so a gateway without one never pays for it.
import type { PlatformKind, ProviderConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';
import { azurePlatform } from './azure.js';
import type { Platform } from './types.js';
import { vertexPlatform } from './vertex.js';

type Factory = (provider: ProviderConfig) => Platform;

const FACTORIES: Partial<Record<PlatformKind, Factory>> = {
  vertex: vertexPlatform,
  azure: (provider) => azurePlatform(provider),
};

const made = new WeakMap<ProviderConfig, Platform>();

/** The provider's platform, or undefined for a first-party API. */
export function platformOf(provider: ProviderConfig): Platform | undefined {
  const settings = provider.platform;
  if (!settings) return undefined;
  let platform = made.get(provider);
  if (!platform) {
    const factory = FACTORIES[settings.kind];
    if (!factory) throw new GatewayError('api_error', `platform ${settings.kind} is not available in this build`);
    platform = factory(provider);
    made.set(provider, platform);
  }
  return platform;
}
