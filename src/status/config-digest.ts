// A short fingerprint of the running configuration: sha256 of the resolved config (defaults applied,
// Maps and patterns written out, its `source` left aside), so two instances or two reloads can be
// compared at a glance. 12 hex characters: enough to tell configs apart, too short to test guesses of a
// secret against.
import { createHash } from 'node:crypto';
import type { GatewayConfig } from '../config/types.js';

const cache = new WeakMap<GatewayConfig, string>();

export function configDigest(config: GatewayConfig): string {
  let digest = cache.get(config);
  if (digest === undefined) {
    const text = JSON.stringify(config, (key, value: unknown) => {
      if (key === 'source') return undefined;
      if (value instanceof Map) return Object.fromEntries(value);
      if (value instanceof RegExp) return value.source;
      return value;
    });
    digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
    cache.set(config, digest);
  }
  return digest;
}
