// `providers.<name>.media_url_prefixes` → the provider's media-URL rule (ir/media-url.ts), and the
// door rule: the union of every provider's, so a URL no provider allows never passes a front door.
import { mediaUrlRule, unionOfRules, type MediaUrlRule } from '../ir/media-url.js';
import { ConfigError } from './config-error.js';
import type { ProviderConfig } from './types.js';

/** The schema already checked the shape (scheme, `://`, trailing `/`); a prefix must also not be one
 * a server could normalise away, nor restate what is always allowed. */
export function resolveMediaUrlPrefixes(key: string, prefixes: readonly string[] | undefined): MediaUrlRule {
  if (prefixes === undefined || prefixes.length === 0) return mediaUrlRule([]);
  prefixes.forEach((prefix, i) => {
    const at = `${key}.media_url_prefixes.${i}`;
    if (/\.\.|%/.test(prefix)) throw new ConfigError(`${at}: may not contain ".." or percent escapes`);
    if (/^https:\/\//i.test(prefix)) throw new ConfigError(`${at}: https:// URLs are always allowed; list only other prefixes (e.g. gs://bucket/)`);
  });
  return mediaUrlRule(prefixes);
}

export function doorMediaUrlRule(providers: Iterable<ProviderConfig>): MediaUrlRule {
  const rules: MediaUrlRule[] = [];
  for (const p of providers) rules.push(p.mediaUrls);
  return unionOfRules(rules);
}
