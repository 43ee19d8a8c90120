// The configuration file's shape, checked once at start-up. Snake_case keys, as in the YAML.
import { Type, type Static } from '@sinclair/typebox';

const Timeouts = Type.Object(
  {
    connect_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    first_byte_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    idle_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    total_ms: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

const Retry = Type.Object(
  {
    attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    backoff_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    max_backoff_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    budget_ms: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const Cooldown = Type.Object(
  {
    failures: Type.Optional(Type.Integer({ minimum: 1 })),
    window_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    cooldown_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    max_cooldown_ms: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

// ---- Access: keys, teams, limits, budgets, prices (issue 12) ----
// Exported: the admin API's bodies (src/access/admin-schemas.ts) take the same limits and budgets.
export const Limits = Type.Object(
  {
    rpm: Type.Optional(Type.Integer({ minimum: 1 })),
    tpm: Type.Optional(Type.Integer({ minimum: 1 })),
    concurrency: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const Budget = Type.Object(
  {
    usd: Type.Number({ exclusiveMinimum: 0 }),
    period: Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month'), Type.Literal('total')]),
  },
  { additionalProperties: false },
);

/** USD per million tokens; cache prices default to the input price. */
const Price = Type.Object(
  {
    input: Type.Number({ minimum: 0 }),
    output: Type.Number({ minimum: 0 }),
    cache_read: Type.Optional(Type.Number({ minimum: 0 })),
    cache_write: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const AuthKey = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    key: Type.Optional(Type.String()),
    /** Hex sha256 of the key: keeps the secret out of the file. */
    key_sha256: Type.Optional(Type.String()),
    /** A deliberately switched-off entry: its key may be empty (an empty key is otherwise an error). */
    disabled: Type.Optional(Type.Boolean()),
    team: Type.Optional(Type.String()),
    /** Allow-list of aliases and glob patterns; absent = every model. */
    models: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    limits: Type.Optional(Limits),
    budget: Type.Optional(Budget),
  },
  { additionalProperties: false },
);

const Team = Type.Object(
  {
    models: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    limits: Type.Optional(Limits),
    budget: Type.Optional(Budget),
  },
  { additionalProperties: false },
);

const AdminKey = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    key: Type.Optional(Type.String()),
    key_sha256: Type.Optional(Type.String()),
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Auth = Type.Object(
  {
    /** Serve callers without a key (everyone is `anonymous`, no limits). Must be said explicitly:
     * a config without keys and without `open: true` does not load. */
    open: Type.Optional(Type.Boolean()),
    keys: Type.Optional(Type.Array(AuthKey)),
    teams: Type.Optional(Type.Record(Type.String(), Team)),
    admin_keys: Type.Optional(Type.Array(AdminKey)),
    /** Keys and teams issued at runtime through the admin API, kept in the state store. */
    runtime_keys: Type.Optional(
      Type.Object(
        {
          /** Default: on when there are admin keys (nobody else can issue them). */
          enabled: Type.Optional(Type.Boolean()),
          /** How old this process's copy of the runtime keys may get while the store is away before
           * runtime keys are refused (503). */
          max_staleness_s: Type.Optional(Type.Number({ minimum: 0.5, maximum: 300 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
// ---- end access ----

export const ProviderSchema = Type.Object(
  {
    protocol: Type.Union([Type.Literal('messages'), Type.Literal('responses'), Type.Literal('chat'), Type.Literal('gemini'), Type.Literal('demo')]),
    base_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    api_key: Type.Optional(Type.String()),
    /** Several keys, rotated per request. */
    api_keys: Type.Optional(Type.Array(Type.String())),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    timeouts: Type.Optional(Timeouts),
    retry: Type.Optional(Retry),
    cooldown: Type.Optional(Cooldown),
    /** Messages upstream: max_tokens for callers that gave no limit. */
    default_max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Chat upstream: the limit field the server knows. */
    max_tokens_field: Type.Optional(Type.Union([Type.Literal('max_tokens'), Type.Literal('max_completion_tokens')])),
    /** Chat upstream: send reasoning_content back on tool-call turns (DeepSeek). */
    echo_reasoning_content: Type.Optional(Type.Boolean()),
    system_role: Type.Optional(Type.Union([Type.Literal('system'), Type.Literal('developer')])),
    /** Translation lane, non-streamed callers: call the upstream streamed (true), not (false), or by the
     * answer's bound (auto, the default). */
    stream_upstream: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('auto')])),
    /** undici Pool connections per origin. */
    connections: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Prices per upstream model name, overriding the shipped table (access/price-table.ts). */
    prices: Type.Optional(Type.Record(Type.String(), Price)),
    /** The cloud serving the protocol (docs/platforms.md); absent = the vendor's own API. */
    platform: Type.Optional(Type.Union([Type.Literal('bedrock'), Type.Literal('vertex'), Type.Literal('azure')])),
    /** bedrock: AWS region; vertex: location (`global` included). */
    region: Type.Optional(Type.String({ minLength: 1 })),
    /** vertex: Google Cloud project id. */
    project: Type.Optional(Type.String({ minLength: 1 })),
    /** azure: deployment name for the deployment URLs; absent = the v1 API. */
    deployment: Type.Optional(Type.String({ minLength: 1 })),
    /** azure: api-version of the deployment URLs. */
    api_version: Type.Optional(Type.String({ minLength: 1 })),
    /** How the platform authenticates; the default follows the platform and whether api_key is set. */
    auth: Type.Optional(Type.Union([Type.Literal('api_key'), Type.Literal('aws'), Type.Literal('google'), Type.Literal('entra')])),
    /** vertex: a service-account key file; absent = Application Default Credentials. */
    credentials_file: Type.Optional(Type.String({ minLength: 1 })),
    /** Media URLs this provider may be sent beyond https: and data: (ir/media-url.ts), e.g.
     * `gs://acme-public-assets/`: a scheme, `://`, no whitespace, ending in `/`. */
    media_url_prefixes: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9+.-]*://[^\\s\\\\]*/$', maxLength: 512 }), { maxItems: 64 }),
    ),
  },
  { additionalProperties: false },
);

const Overrides = Type.Object(
  {
    max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    reasoning_effort: Type.Optional(
      Type.Union(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'].map((v) => Type.Literal(v))),
    ),
  },
  { additionalProperties: false },
);

const Target = Type.Object(
  {
    provider: Type.String(),
    model: Type.Optional(Type.String()),
    weight: Type.Optional(Type.Number({ minimum: 0 })),
    /** Applied only when the caller did not set the value. */
    defaults: Type.Optional(Overrides),
    /** Always applied. */
    overrides: Type.Optional(Overrides),
  },
  { additionalProperties: false },
);

export const ModelSchema = Type.Object(
  {
    provider: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    defaults: Type.Optional(Overrides),
    overrides: Type.Optional(Overrides),
    targets: Type.Optional(Type.Array(Target, { minItems: 1 })),
    strategy: Type.Optional(Type.Union([Type.Literal('fallback'), Type.Literal('weighted'), Type.Literal('least-inflight')])),
    /** The price of every answer under this alias, whatever upstream served it. */
    price: Type.Optional(Price),
  },
  { additionalProperties: false },
);

export const ConfigSchema = Type.Object(
  {
    server: Type.Optional(
      Type.Object(
        {
          host: Type.Optional(Type.String()),
          port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
          body_limit_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
          heartbeat_ms: Type.Optional(Type.Integer({ minimum: 100 })),
          /** Close grace on SIGTERM: running requests and streams may finish for this long once accepting stops. */
          shutdown_grace_ms: Type.Optional(Type.Integer({ minimum: 0 })),
          /** On SIGTERM, keep accepting and serving this long with /readyz at 503 (a load balancer's time to stop sending). */
          drain_delay_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
          /** Connections the kernel may queue before the gateway accepts them (capped by net.core.somaxconn). */
          listen_backlog: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_535 })),
          /** Names a request served without a key may give as Host or Origin, beyond loopback names, IP
           * addresses and server.host (http/host-guard.ts): `gateway.example.com`, `*.example.com`, `*` (any). */
          allowed_hosts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 256 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Responses over WebSocket on GET /v1/responses (OpenAI's WebSocket mode). */
    websocket: Type.Optional(
      Type.Object(
        {
          /** Off: the upgrade is answered 426 Upgrade Required (clients fall back to HTTP at once). */
          enabled: Type.Optional(Type.Boolean()),
          /** A connection is closed after this long (OpenAI: 60 minutes, websocket_connection_limit_reached). */
          connection_limit_ms: Type.Optional(Type.Integer({ minimum: 1000, maximum: 86_400_000 })),
          /** A connection with no response running and no client event for this long is closed. */
          idle_timeout_ms: Type.Optional(Type.Integer({ minimum: 1000, maximum: 86_400_000 })),
          /** Every connection is pinged this often; one that did not answer the last ping is dropped. */
          ping_interval_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    auth: Type.Optional(Auth),
    log: Type.Optional(Type.Object({ level: Type.Optional(Type.String()) }, { additionalProperties: false })),
    metrics: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          /** Serve /metrics on its own port instead of the API port (0 = on the API port). */
          port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
          /** The address of that port (default 127.0.0.1). */
          host: Type.Optional(Type.String({ minLength: 1 })),
          /** /metrics on the API port without a key although there are keys (default: an admin key). */
          public: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    status: Type.Optional(
      Type.Object(
        {
          /** Serve GET /status and /status.json (docs/status.md). */
          enabled: Type.Optional(Type.Boolean()),
          /** Serve them under a sub-path, e.g. /gateway (a proxy that does not strip its prefix). */
          path_prefix: Type.Optional(Type.String({ pattern: '^(/[A-Za-z0-9._~-]+)*$', maxLength: 200 })),
          /** The data without a key although there are keys (default: an admin key; none = refused at load). */
          public: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    responses_store: Type.Optional(
      Type.Object(
        {
          /** Bound of the stored Responses in bytes (0 = store nothing). */
          max_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
          /** Retired count bound: only 0 (= store nothing, like max_bytes: 0) is accepted. */
          max_entries: Type.Optional(Type.Integer({ minimum: 0 })),
          ttl_ms: Type.Optional(Type.Integer({ minimum: 1 })),
          /** How long an id stays claimed by its key (default 30 days, OpenAI's retention). */
          claim_ttl_ms: Type.Optional(Type.Integer({ minimum: 1 })),
          /** The fraction of max_bytes one key's stored responses may take (default 0.25 with several keys, else 1). */
          owner_share: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    state: Type.Optional(
      Type.Object(
        {
          backend: Type.Optional(Type.Union([Type.Literal('memory'), Type.Literal('file'), Type.Literal('redis')])),
          /** file: the directory of the LMDB store. */
          path: Type.Optional(Type.String({ minLength: 1 })),
          /** redis: redis://[user:password@]host:port[/db] or rediss://… */
          url: Type.Optional(Type.String()),
          key_prefix: Type.Optional(Type.String()),
          /** false: start even when the backend does not answer (stateful requests then get 503). */
          required: Type.Optional(Type.Boolean()),
          /** Upper bound of one state call. */
          op_timeout_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 60_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    providers: Type.Record(Type.String(), ProviderSchema),
    models: Type.Record(Type.String(), ModelSchema),
  },
  { additionalProperties: false },
);

export type RawConfig = Static<typeof ConfigSchema>;
export type RawProvider = Static<typeof ProviderSchema>;
export type RawModel = Static<typeof ModelSchema>;
export type RawOverrides = Static<typeof Overrides>;
export type RawAuth = Static<typeof Auth>;
export type RawLimits = Static<typeof Limits>;
export type RawBudget = Static<typeof Budget>;
export type RawPrice = Static<typeof Price>;
