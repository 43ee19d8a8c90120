// Reads, interpolates, validates and resolves the configuration once at start-up (and on reload).
// Every problem is reported with the key it concerns, e.g. `providers.openai.base_url: …`.
import { readFileSync } from 'node:fs';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { parse as parseYaml } from 'yaml';
import type { DriverOptions } from '../drivers/types.js';
import { defaultConfig } from './default-config.js';
import { ConfigError } from './config-error.js';
import { interpolateDocument } from './interpolate.js';
import { describeSchemaErrors, nearest } from './schema-errors.js';
import { checkBaseUrl } from './check-base-url.js';
import { providerCredentials } from './provider-credentials.js';
import { applyListenOverrides } from './listen-overrides.js';
import { resolveAuth, resolvePrice } from './resolve-auth.js';
import { checkOperatorAccess } from './operator-access.js';
import { resolveAllowedHosts } from './resolve-allowed-hosts.js';
import { resolvePlatform } from './resolve-platform.js';
import { doorMediaUrlRule, resolveMediaUrlPrefixes } from './resolve-media-urls.js';
import { clusterSeeds, isClusterUrl } from '../state/redis-url.js';
import { ConfigSchema, type RawConfig, type RawOverrides, type RawProvider } from './schema.js';
import type { GatewayConfig, ModelConfig, ProviderConfig, SamplingOverrides, StateConfig } from './types.js';

export { ConfigError };

const checkConfig = TypeCompiler.Compile(ConfigSchema);

export interface LoadOptions {
  /** YAML file; undefined = the embedded default. */
  file?: string;
  env: Record<string, string | undefined>;
  /** The backend when `state.backend` is not set: `file` for several processes (--workers), so
   * they share one store with no set-up; `memory` otherwise. */
  defaultStateBackend?: 'memory' | 'file';
}

export function loadConfig(options: LoadOptions): GatewayConfig {
  if (!options.file) {
    const raw = defaultConfig(options.env);
    const listenFrom = applyListenOverrides(raw, options.env);
    try {
      return { ...resolveConfig(raw, 'embedded default', options.defaultStateBackend), listenFrom };
    } catch (err) {
      if (err instanceof ConfigError && err.problems.some((p) => p.startsWith('auth:'))) {
        throw new ConfigError(
          err.problems.map((p) => (p.startsWith('auth:') ? `${p} (the embedded default has no keys and is open only on a loopback SWITCHYARD_HOST; to listen on another address, give a config file with auth.keys)` : p)),
        );
      }
      throw err;
    }
  }
  let text: string;
  try {
    text = readFileSync(options.file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${options.file}: ${(err as Error).message}`);
  }
  let template: unknown;
  try {
    template = parseYaml(text);
  } catch (err) {
    // The parser's first line says what and where (line, column); the excerpt it adds after it is
    // the file's own text, secrets included, and is left out (review R6).
    throw new ConfigError(`config file ${options.file} is not valid YAML: ${(err as Error).message.split('\n')[0]!.replace(/:$/, '')}`);
  }
  const { value: raw, unset, problems } = interpolateDocument(template, options.env);
  const listenFrom = applyListenOverrides(raw, options.env);
  return { ...resolveConfig(raw, options.file, options.defaultStateBackend, template, { unset, problems }), listenFrom };
}

/** What interpolation found (interpolate.ts): variables left unset, by key, and `$VAR` slips. */
export interface InterpolationFindings {
  unset: ReadonlyMap<string, readonly string[]>;
  problems: readonly string[];
}

/**
 * Validate a parsed (already interpolated) document and resolve defaults. `template` is the document
 * before interpolation, when there was one: errors about empty values name the variable behind them.
 * Every problem is reported at once: all of the schema's (a document of the wrong shape goes no
 * further), else every one the resolution finds, provider by provider, model by model.
 */
export function resolveConfig(
  raw: unknown,
  source: string,
  defaultStateBackend: 'memory' | 'file' = 'memory',
  template?: unknown,
  found: InterpolationFindings = { unset: new Map(), problems: [] },
): GatewayConfig {
  if (!checkConfig.Check(raw)) throw new ConfigError([...found.problems, ...describeSchemaErrors(checkConfig.Errors(raw), raw)]);
  const problems: string[] = [...found.problems];
  /** Runs one independent part of the resolution; its ConfigError joins the list instead of ending it. */
  const part = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
      return undefined;
    }
  };
  const cfg = raw as RawConfig;
  const providers = new Map<string, ProviderConfig>();
  for (const [name, p] of Object.entries(cfg.providers)) {
    const resolved = part(() => resolveProvider(name, p, found.unset, (template as { providers?: Record<string, unknown> } | undefined)?.providers?.[name]));
    if (resolved) providers.set(name, resolved);
  }
  const providerNames = Object.keys(cfg.providers);

  const exact: ModelConfig[] = [];
  const wild: ModelConfig[] = [];
  for (const [name, m] of Object.entries(cfg.models)) part(() => {
    const key = `models.${name}`;
    const rawTargets = m.targets ?? (m.provider ? [{ provider: m.provider, model: m.model, defaults: m.defaults, overrides: m.overrides }] : []);
    if (rawTargets.length === 0) throw new ConfigError(`${key}: needs a provider or a list of targets`);
    if (m.targets && m.provider) throw new ConfigError(`${key}: give either provider or targets, not both`);
    const pattern = /[*?[]/.test(name) ? globToRegExp(name) : undefined;
    const targets = rawTargets.map((t, i) => {
      const tkey = m.targets ? `${key}.targets.${i}` : key;
      // A provider that failed its own checks is known: its problem is already listed.
      if (!providerNames.includes(t.provider)) {
        const near = nearest(t.provider, providerNames);
        throw new ConfigError(`${tkey}.provider: unknown provider "${t.provider}" (known: ${providerNames.join(', ')})${near ? `; did you mean ${near}?` : ''}`);
      }
      return {
        provider: t.provider,
        // An exact alias without `model` sends the alias itself; a wildcard passes the caller's name through.
        model: t.model ?? (pattern ? undefined : name),
        weight: 'weight' in t && typeof t.weight === 'number' ? t.weight : 1,
        defaults: resolveOverrides(t.defaults ?? m.defaults),
        overrides: resolveOverrides(t.overrides ?? m.overrides),
      };
    });
    const model: ModelConfig = { name, pattern, targets, strategy: m.strategy ?? 'fallback' };
    if (m.price) model.price = resolvePrice(m.price);
    (pattern ? wild : exact).push(model);
  });

  const server = cfg.server ?? {};
  const access = part(() => resolveAuth(cfg.auth, (template as { auth?: unknown } | undefined)?.auth));
  const state = part(() => resolveState(cfg.state, defaultStateBackend));
  const allowedHosts = part(() => resolveAllowedHosts(server.allowed_hosts));
  const responsesStore = state && part(() => resolveResponsesStore(cfg, state, access?.authKeys.length ?? 0));
  const metrics = { enabled: cfg.metrics?.enabled ?? true, port: cfg.metrics?.port ?? 0, host: cfg.metrics?.host ?? '127.0.0.1', public: cfg.metrics?.public ?? false };
  const status = { enabled: cfg.status?.enabled ?? false, pathPrefix: cfg.status?.path_prefix ?? '', public: cfg.status?.public ?? false };
  if (access) part(() => (checkOperatorAccess({ auth: access.auth, metrics, status }), true));
  if (problems.length > 0 || !access || !state || !allowedHosts || !responsesStore) throw new ConfigError(problems);
  const { authKeys, auth } = access;
  return {
    server: {
      host: server.host ?? '127.0.0.1',
      port: server.port ?? 8080,
      bodyLimitBytes: server.body_limit_bytes ?? 32 * 1024 * 1024,
      heartbeatMs: server.heartbeat_ms ?? 10_000,
      shutdownGraceMs: server.shutdown_grace_ms ?? 10_000,
      drainDelayMs: server.drain_delay_ms ?? 5_000,
      // Node's default is 511: thousands of callers (re)connecting at once on a busy host overflowed it
      // (dropped handshakes: connect timeouts, resets; bench/profiles.md, issue 25). The kernel caps it
      // at net.core.somaxconn.
      listenBacklog: server.listen_backlog ?? 4096,
      allowedHosts,
    },
    websocket: {
      enabled: cfg.websocket?.enabled ?? true,
      connectionLimitMs: cfg.websocket?.connection_limit_ms ?? 3_600_000,
      idleTimeoutMs: cfg.websocket?.idle_timeout_ms ?? 900_000,
      pingIntervalMs: cfg.websocket?.ping_interval_ms ?? 30_000,
    },
    authKeys,
    auth,
    logLevel: cfg.log?.level ?? 'info',
    metrics,
    status,
    responsesStore,
    state,
    providers,
    models: [...exact, ...wild],
    mediaUrls: doorMediaUrlRule(providers.values()),
    source,
  };
}

/** The Gemini API's own base URL (gemini.md §1): a `protocol: gemini` provider may leave `base_url` out. */
const GEMINI_API_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

function resolveProvider(name: string, p: RawProvider, unset: ReadonlyMap<string, readonly string[]>, template: unknown): ProviderConfig {
  const key = `providers.${name}`;
  let origin = '';
  let basePath = '';
  let baseUrl = '';
  const { apiKeys, given } = providerCredentials(key, p, unset, template);
  const platform = resolvePlatform(key, p, { given, count: apiKeys.length });
  if (p.protocol !== 'demo') {
    const given = p.base_url ?? platform?.defaultBaseUrl ?? (p.protocol === 'gemini' ? GEMINI_API_BASE_URL : undefined);
    if (!given) throw new ConfigError(`${key}.base_url: required for protocol ${p.protocol}${platform ? ` on platform ${platform.settings.kind}` : ''}`);
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new ConfigError(`${key}.base_url: not a URL`);
    }
    checkBaseUrl(key, p, url);
    baseUrl = given.replace(/\/+$/, '');
    origin = url.origin;
    basePath = url.pathname.replace(/\/+$/, '');
  }
  const driverOptions: DriverOptions = {
    defaultMaxTokens: p.default_max_tokens ?? 32000,
    maxTokensField: p.max_tokens_field ?? (/api\.openai\.com/.test(baseUrl) ? 'max_completion_tokens' : 'max_tokens'),
    echoReasoningContent: p.echo_reasoning_content ?? false,
    systemRole: p.system_role ?? 'system',
  };
  const t = p.timeouts ?? {};
  const r = p.retry ?? {};
  const c = p.cooldown ?? {};
  return {
    name,
    protocol: p.protocol,
    baseUrl,
    origin,
    basePath,
    apiKeys,
    headers: p.headers ?? {},
    timeouts: {
      connectMs: t.connect_ms ?? 10_000,
      firstByteMs: t.first_byte_ms ?? 120_000,
      idleMs: t.idle_ms ?? 300_000,
      totalMs: t.total_ms ?? 1_800_000,
    },
    retry: {
      attempts: r.attempts ?? 2,
      backoffMs: r.backoff_ms ?? 250,
      maxBackoffMs: r.max_backoff_ms ?? 4_000,
      budgetMs: r.budget_ms ?? 30_000,
    },
    cooldown: {
      failures: c.failures ?? 5,
      windowMs: c.window_ms ?? 30_000,
      cooldownMs: c.cooldown_ms ?? 5_000,
      maxCooldownMs: c.max_cooldown_ms ?? 300_000,
    },
    driverOptions,
    streamUpstream: p.stream_upstream === true ? 'always' : p.stream_upstream === false ? 'never' : 'auto',
    connections: p.connections ?? 128,
    prices: new Map(Object.entries(p.prices ?? {}).map(([model, price]) => [model, resolvePrice(price)])),
    platform: platform?.settings,
    mediaUrls: resolveMediaUrlPrefixes(key, p.media_url_prefixes),
  };
}

function resolveOverrides(o: RawOverrides | undefined): SamplingOverrides {
  if (!o) return {};
  return { maxTokens: o.max_tokens, temperature: o.temperature, topP: o.top_p, reasoningEffort: o.reasoning_effort as SamplingOverrides["reasoningEffort"] };
}

/** `claude-*` → /^claude-.*$/ ; supports *, ? and [..] classes. */
export function globToRegExp(glob: string): RegExp {
  let re = '^';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i);
      if (end === -1) re += '\\[';
      else {
        re += '[' + glob.slice(i + 1, end).replace(/\\/g, '\\\\') + ']';
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(re + '$');
}

function resolveState(raw: RawConfig['state'], defaultBackend: 'memory' | 'file'): StateConfig {
  const s = raw ?? {};
  // An explicit `state.url` or `state.key_prefix` still means what it says: the default stays memory.
  const backend = s.backend ?? (s.url === undefined && s.key_prefix === undefined ? defaultBackend : 'memory');
  const url = s.url ?? '';
  if (backend === 'redis') {
    if (url === '') throw new ConfigError('state.url: required for backend redis (e.g. redis://127.0.0.1:6379)');
    if (isClusterUrl(url)) {
      // A Redis Cluster: its seed nodes, comma-separated (not a WHATWG URL).
      try {
        clusterSeeds(url);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
    } else {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new ConfigError('state.url: not a URL (expected redis://host:port, rediss://host:port or redis+cluster://host:port,host:port)');
      }
      if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
        throw new ConfigError(`state.url: scheme must be redis://, rediss:// or redis+cluster://, got ${parsed.protocol}//`);
      }
    }
  } else if (s.url !== undefined) {
    throw new ConfigError(`state.url: only used by backend redis (backend is ${backend})`);
  }
  if (backend !== 'file' && s.path !== undefined) throw new ConfigError(`state.path: only used by backend file (backend is ${backend})`);
  if (backend !== 'redis' && s.key_prefix !== undefined) {
    throw new ConfigError(`state.key_prefix: only used by backend redis (backend is ${backend})`);
  }
  return {
    backend,
    path: s.path ?? './.switchyard/state',
    url,
    keyPrefix: s.key_prefix ?? 'switchyard:',
    required: s.required ?? true,
    opTimeoutMs: s.op_timeout_ms ?? 1500,
  };
}

/** OpenAI keeps a stored response 30 days: an id stays its key's at least that long. */
const DEFAULT_CLAIM_TTL_MS = 30 * 24 * 3_600_000;
/** With several keys, one may fill a quarter of the store: it cannot push the other keys' responses
 * out. With one key or none (open access: every answer is the anonymous caller's) there is nobody else
 * to protect, so the whole store. Read at start-up, like the backend. */
const DEFAULT_OWNER_SHARE = 0.25;

function resolveResponsesStore(cfg: RawConfig, state: StateConfig, keyCount: number): GatewayConfig['responsesStore'] {
  const r = cfg.responses_store ?? {};
  // An in-process copy is cheaper to bound tighter than a shared one on disk or in Redis.
  const defaultBytes = state.backend === 'memory' ? 64 * 1024 * 1024 : 256 * 1024 * 1024;
  // max_entries bounds nothing any more (the bound is in bytes); only its old "0 = store nothing" is
  // kept, so an operator relying on a count bound is told instead of silently getting none.
  if (r.max_entries !== undefined && r.max_entries !== 0) {
    throw new ConfigError(`responses_store.max_entries: no longer supported (the store is bounded in bytes); use responses_store.max_bytes (0 = store nothing)`);
  }
  const maxBytes = r.max_bytes ?? (r.max_entries === 0 ? 0 : defaultBytes);
  return {
    maxBytes,
    ttlMs: r.ttl_ms ?? 3_600_000,
    claimTtlMs: r.claim_ttl_ms ?? DEFAULT_CLAIM_TTL_MS,
    ownerShare: r.owner_share ?? (keyCount > 1 ? DEFAULT_OWNER_SHARE : 1),
  };
}
