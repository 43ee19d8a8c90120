// `providers.<name>.platform` and its settings → PlatformSettings, with the platform's default base URL.
// Each platform serves only some protocols; a setting that belongs to another platform is an error, so
// a typo cannot silently reach the wrong cloud.
import { ConfigError } from './config-error.js';
import type { RawProvider } from './schema.js';
import type { PlatformKind, PlatformSettings } from './types.js';

const PROTOCOLS: Record<PlatformKind, readonly string[]> = {
  bedrock: ['messages'],
  vertex: ['messages', 'gemini'],
  azure: ['responses', 'chat'],
};

/** Which settings each platform reads. */
const SETTINGS: Record<PlatformKind, readonly (keyof RawProvider)[]> = {
  bedrock: ['region', 'auth'],
  vertex: ['region', 'project', 'auth', 'credentials_file'],
  azure: ['deployment', 'api_version', 'auth'],
};
const PLATFORM_ONLY: readonly (keyof RawProvider)[] = ['region', 'project', 'deployment', 'api_version', 'auth', 'credentials_file'];

const AUTH: Record<PlatformKind, readonly PlatformSettings['auth'][]> = {
  bedrock: ['aws', 'api_key'],
  vertex: ['google'],
  azure: ['api_key', 'entra'],
};

export interface ResolvedPlatform {
  settings: PlatformSettings;
  /** The base URL when the config gives none. */
  defaultBaseUrl: string | undefined;
}

/** Undefined for a first-party provider (after checking that no platform setting was given). */
/**
 * `keys.given`: the file gives api_key/api_keys (empty or not); `keys.count`: how many are non-empty. The
 * auth mode is `auth`, else api_key when a key is given, else the platform's own credentials: an empty
 * value (an unset variable) never switches a provider to SigV4 or Entra behind its operator's back.
 */
export function resolvePlatform(key: string, p: RawProvider, keys: { given: boolean; count: number }): ResolvedPlatform | undefined {
  const kind = p.platform;
  if (!kind) {
    for (const k of PLATFORM_ONLY) if (p[k] !== undefined) throw new ConfigError(`${key}.${k}: only used with a platform (bedrock, vertex, azure)`);
    return undefined;
  }
  if (!PROTOCOLS[kind].includes(p.protocol)) {
    throw new ConfigError(`${key}.platform: ${kind} serves protocol ${PROTOCOLS[kind].join(' or ')}, not ${p.protocol}`);
  }
  for (const k of PLATFORM_ONLY) {
    if (p[k] !== undefined && !SETTINGS[kind].includes(k)) throw new ConfigError(`${key}.${k}: not used by platform ${kind}`);
  }
  if (kind === 'vertex' && keys.given) {
    throw new ConfigError(`${key}.api_key: not used by platform vertex (it authenticates with Google credentials: credentials_file, or Application Default Credentials)`);
  }
  const auth = p.auth ?? defaultAuth(kind, keys.given);
  if (!AUTH[kind].includes(auth)) throw new ConfigError(`${key}.auth: platform ${kind} authenticates with ${AUTH[kind].join(' or ')}, not ${auth}`);
  if (auth === 'api_key' && keys.count === 0) {
    throw new ConfigError(
      keys.given
        ? `${key}.api_key: empty; with an api_key given, platform ${kind} authenticates with it (an empty one never switches to ${defaultAuth(kind, false)}): set it, or leave api_key out and write auth: ${defaultAuth(kind, false)}`
        : `${key}.api_key: required for auth api_key`,
    );
  }
  if (auth !== 'api_key' && keys.given) throw new ConfigError(`${key}.api_key: not used with auth ${auth}; leave it out, or write auth: api_key`);
  const region = p.region ?? '';
  const project = p.project ?? '';
  if ((kind === 'bedrock' || kind === 'vertex') && region === '') throw new ConfigError(`${key}.region: required for platform ${kind}`);
  if (kind === 'vertex' && project === '') throw new ConfigError(`${key}.project: required for platform vertex`);
  if (kind === 'azure' && p.deployment !== undefined && p.api_version === undefined) {
    throw new ConfigError(`${key}.api_version: required with deployment (the deployment URLs need an api-version)`);
  }
  // The deployment URLs hang off the resource's endpoint; the v1 API's URL has no deployments under it.
  if (kind === 'azure' && p.deployment !== undefined && p.base_url !== undefined && /\/v1\/*$/.test(p.base_url)) {
    throw new ConfigError(`${key}.base_url: with deployment, the resource endpoint (https://{resource}.openai.azure.com), not the v1 API's URL`);
  }
  return {
    settings: {
      kind,
      region,
      project,
      deployment: p.deployment ?? '',
      apiVersion: p.api_version ?? '',
      auth,
      credentialsFile: p.credentials_file ?? '',
    },
    defaultBaseUrl: defaultBaseUrl(kind, region),
  };
}

function defaultAuth(kind: PlatformKind, hasApiKey: boolean): PlatformSettings['auth'] {
  if (kind === 'bedrock') return hasApiKey ? 'api_key' : 'aws';
  if (kind === 'vertex') return 'google';
  return hasApiKey ? 'api_key' : 'entra';
}

function defaultBaseUrl(kind: PlatformKind, region: string): string | undefined {
  if (kind === 'bedrock') return `https://bedrock-runtime.${region}.amazonaws.com`;
  if (kind === 'vertex') {
    if (region === 'global') return 'https://aiplatform.googleapis.com/v1';
    // The multi-region locations have hosts of their own (as @anthropic-ai/vertex-sdk addresses them).
    if (region === 'us' || region === 'eu') return `https://aiplatform.${region}.rep.googleapis.com/v1`;
    return `https://${region}-aiplatform.googleapis.com/v1`;
  }
  return undefined; // azure: the resource's own URL
}
