// A short fingerprint of the running configuration, so two instances or two reloads can be compared at a
// glance: sha256 of the resolved config (defaults applied, Maps and patterns written out), 12 hex. Its
// `source` (a path) is left out, and so are secrets: key values and digests, upstream headers' values and
// credentials in URLs. A page anyone may read must not let them test guesses of a key against it.
import { createHash } from 'node:crypto';
import type { GatewayConfig } from '../config/types.js';

const cache = new WeakMap<GatewayConfig, string>();
const SECRET_FIELDS = new Set(['source', 'key', 'keySha256', 'apiKeys']);

export function configDigest(config: GatewayConfig): string {
  let digest = cache.get(config);
  if (digest === undefined) {
    const text = JSON.stringify(config, (key, value: unknown) => {
      if (SECRET_FIELDS.has(key)) return undefined;
      if (key === 'headers' && value !== null && typeof value === 'object') return Object.keys(value).sort();
      if (typeof value === 'string' && key.toLowerCase().endsWith('url')) return value.replace(/\/\/[^/@]*@/, '//');
      if (value instanceof Map) return Object.fromEntries(value);
      if (value instanceof RegExp) return value.source;
      return value;
    });
    digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
    cache.set(config, digest);
  }
  return digest;
}
