// Google Vertex AI: a publisher's model addressed in the URL (`/projects/{p}/locations/{r}/publishers/
// {publisher}/models/{model}:{method}`, relative to `https://{region}-aiplatform.googleapis.com/v1` or
// the global host), a Google OAuth bearer token (google-auth.ts), and Google's error shape for what the
// platform itself refuses (quota, credentials, unknown model). Anthropic models take the Messages body
// without `model` and with `anthropic_version`, and answer in Anthropic's own SSE and error shapes.
import type { ProviderConfig } from '../config/types.js';
import { GatewayError, kindForUpstreamStatus, type GatewayErrorKind } from '../errors.js';
import { credentialFetchBoundMs } from './credential-deadline.js';
import { googleTokens } from './google-auth.js';
import type { TokenCache } from './token-cache.js';
import { withFirstMembers, withFirstMembersWithout } from './json-members.js';
import type { Operation, Platform, PlatformRequest } from './types.js';

/** What Google documents for Claude on Vertex (the body's `anthropic_version`). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
const VERSION_MEMBER = `"anthropic_version":"${VERTEX_ANTHROPIC_VERSION}"`;

/** How one protocol's models are published on Vertex: the publisher, its methods, and the body's envelope. */
interface Publisher {
  publisher: string;
  generate: string;
  stream: string;
  /** `count-tokens` (Anthropic's counter is a model of its own) or undefined: the model's own method. */
  countModel: string | undefined;
  count: string;
  envelope(body: string, operation: Operation): string;
}

const PUBLISHERS: Record<string, Publisher | undefined> = {
  messages: {
    publisher: 'anthropic',
    generate: ':rawPredict',
    stream: ':streamRawPredict',
    countModel: 'count-tokens',
    count: ':rawPredict',
    // The model is in the URL; the counter keeps it in the body (it is one endpoint for every model).
    // `stream` stays: streamRawPredict expects `"stream": true`.
    envelope: (body, operation) => (operation === 'count_tokens' ? withFirstMembers(body, VERSION_MEMBER) : withFirstMembersWithout(body, VERSION_MEMBER, 'model')),
  },
  // Gemini models (protocol `gemini`): the body has no model and no envelope; Vertex's countTokens takes
  // the request's fields at the top level, where the Gemini API wraps them in `generateContentRequest`.
  gemini: {
    publisher: 'google',
    generate: ':generateContent',
    stream: ':streamGenerateContent?alt=sse',
    countModel: undefined,
    count: ':countTokens',
    envelope: (body, operation) => (operation === 'count_tokens' ? unwrapCountRequest(body) : body),
  },
};

/** `{"generateContentRequest": {model, …}}` → `{…}` (counting is not a hot path: one parse). */
function unwrapCountRequest(body: string): string {
  const parsed = JSON.parse(body) as { generateContentRequest?: Record<string, unknown> };
  const inner = parsed.generateContentRequest;
  if (!inner || typeof inner !== 'object') return body;
  const { model: _model, ...rest } = inner;
  return JSON.stringify(rest);
}

/** The model's path relative to the Vertex base URL (`…/v1`). */
export function vertexModelPath(project: string, region: string, protocol: string, model: string, operation: Operation, stream: boolean): string {
  const pub = PUBLISHERS[protocol];
  if (!pub) throw new GatewayError('api_error', `Vertex AI does not serve protocol ${protocol}`);
  const counting = operation === 'count_tokens';
  const name = counting && pub.countModel !== undefined ? pub.countModel : encodeURIComponent(model).replace(/%40/g, '@');
  const method = counting ? pub.count : stream ? pub.stream : pub.generate;
  return `/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}/publishers/${pub.publisher}/models/${name}${method}`;
}

/** First-party headers Vertex must not get: its auth is the Google token, its version the body's. */
const DROPPED = new Set(['x-api-key', 'authorization', 'anthropic-version', 'x-goog-api-key']);

/** `tokens`: the Google token source (tests inject one); by default google-auth-library's. */
export function vertexPlatform(provider: ProviderConfig, tokens?: TokenCache): Platform {
  const settings = provider.platform!;
  const pub = PUBLISHERS[provider.protocol];
  if (!pub) throw new GatewayError('api_error', `upstream ${provider.name}: Vertex AI does not serve protocol ${provider.protocol}`);
  const source = tokens ?? googleTokens(provider.name, settings.credentialsFile, settings.project, credentialFetchBoundMs(provider.timeouts.connectMs));

  const finish = (req: PlatformRequest, token: string): PlatformRequest => {
    const headers: Record<string, string> = {};
    for (const name in req.headers) if (!DROPPED.has(name.toLowerCase())) headers[name] = req.headers[name]!;
    headers['authorization'] = 'Bearer ' + token;
    return {
      ...req,
      path: vertexModelPath(settings.project, settings.region, provider.protocol, req.model, req.operation, req.stream),
      headers,
      body: pub.envelope(req.body, req.operation),
    };
  };

  return {
    prepare(req) {
      const token = source.get();
      return typeof token === 'string' ? finish(req, token) : token.then((t) => finish(req, t));
    },
    decodeError(status, headers, body) {
      const err = decodeGoogleError(provider.name, status, headers, body);
      // Refused before its expiry (a revoked key, a rotated service account): fetch a new one next time.
      if (status === 401) source.invalidate();
      return err;
    },
  };
}

/** Google API status names (google.rpc.Code) → our kinds, where the HTTP status alone would say less. */
const STATUS_KINDS: Record<string, GatewayErrorKind> = {
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
  // The deployment's credentials or IAM binding, never the caller's key: 502, the circuit counts it.
  UNAUTHENTICATED: 'bad_gateway',
  PERMISSION_DENIED: 'bad_gateway',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limit',
  ABORTED: 'conflict',
  CANCELLED: 'api_error',
  INTERNAL: 'api_error',
  UNKNOWN: 'api_error',
  UNAVAILABLE: 'overloaded',
  DEADLINE_EXCEEDED: 'timeout',
};

interface GoogleErrorBody {
  error?: { code?: unknown; message?: unknown; status?: unknown };
}

/** Google's `{error:{code,message,status}}` (a one-element array on the streaming methods) → GatewayError;
 * undefined for anything else (Anthropic's own error body, which the Messages driver reads). */
export function decodeGoogleError(
  providerName: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: string,
): GatewayError | undefined {
  const start = body.trimStart();
  if (start[0] !== '{' && start[0] !== '[') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const obj = (Array.isArray(parsed) ? parsed[0] : parsed) as GoogleErrorBody | undefined;
  const error = obj?.error;
  // Anthropic's shape has `type`; Google's has `status` or a numeric `code`.
  if (!error || typeof error !== 'object' || (typeof error.status !== 'string' && typeof error.code !== 'number')) return undefined;
  const name = typeof error.status === 'string' ? error.status : '';
  const kind = STATUS_KINDS[name] ?? kindForUpstreamStatus(status);
  const detail = typeof error.message === 'string' && error.message !== '' ? error.message : `HTTP ${status}`;
  const retryAfter = headers['retry-after'];
  const options = { upstreamStatus: status, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
  if (kind === 'bad_gateway' && status < 500) {
    // The deployment's credentials or IAM binding. Google's text names the project, the resource path,
    // sometimes the principal: fixed text for the caller, Google's kept as the cause for the log.
    return new GatewayError('bad_gateway', `upstream ${providerName}: Vertex AI refused the deployment's Google credentials (${name || `HTTP ${status}`})`, {
      ...options,
      cause: new Error(`Vertex AI: ${detail}`),
    });
  }
  return new GatewayError(kind, `Vertex AI: ${detail}`, options);
}
