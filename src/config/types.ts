// The resolved configuration: defaults applied, names checked, ready for the router and drivers.
import type { DriverOptions } from '../drivers/types.js';
import type { MediaUrlRule } from '../ir/media-url.js';
import type { ReasoningEffort } from '../ir/types.js';

export type ProviderProtocol = 'messages' | 'responses' | 'chat' | 'gemini' | 'demo';

export interface Timeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
  totalMs: number;
}

export interface RetryPolicy {
  /** Attempts per target (1 = no retry). */
  attempts: number;
  backoffMs: number;
  maxBackoffMs: number;
  /** Total time budget for all attempts of one request, before the first byte. */
  budgetMs: number;
}

export interface CooldownPolicy {
  failures: number;
  windowMs: number;
  cooldownMs: number;
  maxCooldownMs: number;
}

/** The cloud that serves a provider's protocol (docs/platforms.md); absent = the vendor's own API. */
export type PlatformKind = 'bedrock' | 'vertex' | 'azure';

export interface PlatformSettings {
  kind: PlatformKind;
  /** bedrock: AWS region; vertex: Google Cloud location (`global` included). */
  region: string;
  /** vertex: Google Cloud project id. */
  project: string;
  /** azure: the deployment of the older deployment URLs (`/openai/deployments/{deployment}/…`);
   * '' = the v1 API, where the model names the deployment. */
  deployment: string;
  /** azure: `api-version` of the deployment URLs. */
  apiVersion: string;
  /** How the platform authenticates: `api_key` (Bedrock API key as a Bearer token, Azure `api-key`),
   * `aws` (SigV4 from the standard credential chain), `google` (OAuth from Application Default
   * Credentials or `credentials_file`), `entra` (a Microsoft Entra token). */
  auth: 'api_key' | 'aws' | 'google' | 'entra';
  /** google: a service-account key file; '' = Application Default Credentials. */
  credentialsFile: string;
}

export interface ProviderConfig {
  name: string;
  protocol: ProviderProtocol;
  /** e.g. https://api.openai.com/v1 — origin and base path split for the undici Pool. */
  baseUrl: string;
  origin: string;
  basePath: string;
  apiKeys: string[];
  headers: Record<string, string>;
  timeouts: Timeouts;
  retry: RetryPolicy;
  cooldown: CooldownPolicy;
  driverOptions: DriverOptions;
  /** Translation lane, non-streamed callers: see `upstreamStreams` in router/upstream-streaming.ts. */
  streamUpstream: 'always' | 'never' | 'auto';
  connections: number;
  /** `providers.<name>.prices`, by upstream model name. */
  prices: Map<string, ModelPrice>;
  /** The cloud platform serving the protocol; undefined = the vendor's own API. */
  platform?: PlatformSettings;
  /** Media URLs this provider may be sent (`media_url_prefixes` beyond https: and data:). */
  mediaUrls: MediaUrlRule;
}

export interface SamplingOverrides {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  reasoningEffort?: ReasoningEffort;
}

export interface TargetConfig {
  provider: string;
  /** Upstream model name; undefined = the name the caller asked for (wildcard routes). */
  model: string | undefined;
  weight: number;
  defaults: SamplingOverrides;
  overrides: SamplingOverrides;
}

export type Strategy = 'fallback' | 'weighted' | 'least-inflight';

export interface ModelConfig {
  /** The alias, or the wildcard pattern as written (also the bounded metric label). */
  name: string;
  /** Set for wildcard routes (`claude-*`, `o[0-9]*`). */
  pattern: RegExp | undefined;
  targets: TargetConfig[];
  strategy: Strategy;
  /** `models.<alias>.price`: wins over provider and shipped prices. */
  price?: ModelPrice;
}

// ---- Access: keys, teams, limits, budgets, prices (issue 12) ----

/** USD per million tokens. Reasoning is billed as output. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface RateLimits {
  rpm?: number;
  tpm?: number;
  concurrency?: number;
}

export type BudgetPeriod = 'day' | 'week' | 'month' | 'total';

export interface Budget {
  usd: number;
  period: BudgetPeriod;
}

/**
 * A caller key. `{name, key}` alone is the historical form and stays valid. Exactly one of `key` or
 * `keySha256` (lowercase hex) identifies it; the key index (access/key-index.ts) hashes `key`.
 */
export interface KeyConfig {
  name: string;
  key?: string;
  keySha256?: string;
  team?: string;
  /** Alias/glob allow-list; undefined = every model. */
  models?: string[];
  limits?: RateLimits;
  budget?: Budget;
}

export interface TeamConfig {
  name: string;
  models?: string[];
  limits?: RateLimits;
  budget?: Budget;
}

export interface AdminKeyConfig {
  name: string;
  key?: string;
  keySha256?: string;
}

export interface AuthConfig {
  teams: Map<string, TeamConfig>;
  adminKeys: AdminKeyConfig[];
  /** `auth.open: true`: callers need no key. Never inferred from an empty key list. */
  open: boolean;
  /** Names of the entries switched off with `disabled: true` (start-up warns about each). */
  disabled?: string[];
  /** `auth.runtime_keys`: keys issued through the admin API (access/runtime-keys.ts). Absent = on
   * when there are admin keys, with the default staleness bound. */
  runtimeKeys?: { enabled: boolean; maxStalenessMs: number };
}
// ---- end access ----

export interface GatewayConfig {
  server: {
    host: string;
    port: number;
    bodyLimitBytes: number;
    heartbeatMs: number;
    shutdownGraceMs: number;
    drainDelayMs: number;
    listenBacklog: number;
    /** `server.allowed_hosts`: extra names for the keyless Host/Origin check (http/host-guard.ts). */
    allowedHosts: string[];
  };
  /** Responses over WebSocket (`websocket:`): off answers the upgrade 426. */
  websocket: WebSocketConfig;
  /** `auth.keys` (enabled entries): who may call. Open access only with `auth.open: true`, which
   * cannot be combined with keys; admin keys alone keep the gateway closed. */
  authKeys: KeyConfig[];
  /** `auth.teams` and `auth.admin_keys`. */
  auth: AuthConfig;
  logLevel: string;
  /** port > 0: /metrics is served on its own listener (host:port) and not on the API port. `public`:
   * on the API port without a key although there are keys (config/operator-access.ts). */
  metrics: { enabled: boolean; port: number; host: string; public: boolean };
  /** The status page (GET <pathPrefix>/status, /status.json); pathPrefix '' or '/a/b'. `public`: the
   * data without a key although there are keys (config/operator-access.ts). */
  status: { enabled: boolean; pathPrefix: string; public: boolean };
  /** maxBytes: the byte bound of the stored Responses' namespace (0 = store nothing). */
  responsesStore: {
    maxBytes: number;
    ttlMs: number;
    /** How long a response's and its items' ids stay claimed by their key (tombstones included). */
    claimTtlMs: number;
    /** The fraction of maxBytes one key may take. */
    ownerShare: number;
  };
  state: StateConfig;
  providers: Map<string, ProviderConfig>;
  /** Exact aliases first (in file order), then wildcard routes (in file order). */
  models: ModelConfig[];
  /** The front doors' media-URL rule: https:, data: and every provider's prefixes (ir/media-url.ts). */
  mediaUrls: MediaUrlRule;
  /** Where it came from: a file path or "embedded default". */
  source: string;
  /** Where server.host and server.port came from (SWITCHYARD_HOST/PORT win over the file), for the log. */
  listenFrom?: { host: string; port: string };
}

export interface WebSocketConfig {
  enabled: boolean;
  connectionLimitMs: number;
  idleTimeoutMs: number;
  pingIntervalMs: number;
}

export interface StateConfig {
  backend: 'memory' | 'file' | 'redis';
  /** file: directory of the LMDB store. */
  path: string;
  /** redis: connection URL ('' for other backends). */
  url: string;
  keyPrefix: string;
  /** Startup fails when the backend does not answer, unless false. */
  required: boolean;
  opTimeoutMs: number;
}
