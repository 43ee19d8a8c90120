// A provider's credentials fail closed, like the gateway's own keys: an `api_key`, `api_keys` entry or
// header built from an unset `${VAR}` is a config error naming the provider and the variable, never a
// gateway that starts and sends requests with no credential. A provider that needs no key leaves
// `api_key` out, or says so with a default: `${VAR:-}` (empty when unset, on purpose).
import { ConfigError } from './config-error.js';
import type { RawProvider } from './schema.js';

export interface ProviderCredentials {
  /** The non-empty keys, rotated per request. */
  apiKeys: string[];
  /** Whether the file gives `api_key` or `api_keys` at all (empty or not): on a platform that, and never
   * an empty value, selects the api_key auth mode. */
  given: boolean;
}

export function providerCredentials(key: string, p: RawProvider, unset: ReadonlyMap<string, readonly string[]>, template: unknown): ProviderCredentials {
  const problems: string[] = [];
  const t = (template ?? {}) as { api_key?: unknown; api_keys?: unknown[] };
  const name = key.slice('providers.'.length);
  const instead = p.platform
    ? `, or leave api_key out to use ${p.platform}'s own credentials`
    : `, or write \${VAR:-} (an empty default) if provider ${name} needs no key`;
  const check = (field: string, value: string | undefined, written: unknown, what: string) => {
    const vars = unset.get(field);
    if (vars) {
      const list = vars.map((v) => `\${${v}}`).join(', ');
      problems.push(`${field}: ${list} ${vars.length > 1 ? 'are' : 'is'} not set, so provider ${name} would ${what}; set ${vars.length > 1 ? 'them' : 'it'}${instead.replace('VAR', vars[0]!)}`);
    } else if (value === '' && !(typeof written === 'string' && written.includes('${'))) {
      problems.push(`${field}: empty; leave it out if provider ${name} needs no key`);
    }
  };
  check(`${key}.api_key`, p.api_key, t.api_key, 'send no credential');
  (p.api_keys ?? []).forEach((k, i) => check(`${key}.api_keys.${i}`, k, t.api_keys?.[i], 'send no credential'));
  for (const [header, value] of Object.entries(p.headers ?? {})) check(`${key}.headers.${header}`, value, '${', 'send that header without its value');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    apiKeys: [...(p.api_keys ?? []), ...(p.api_key ? [p.api_key] : [])].filter((k) => k !== ''),
    given: p.api_key !== undefined || p.api_keys !== undefined,
  };
}
