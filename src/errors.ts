// Every gateway error once: a kind, its retryability, and the HTTP status each front door gives it.
// Codecs render a GatewayError in their protocol's envelope (codecs/<p>/encode-error.ts).

export type GatewayErrorKind =
  | 'invalid_request' // 400
  | 'context_overflow' // 400, with the wording clients key on
  | 'authentication' // 401
  | 'billing' // 402 (Messages) / 429 insufficient_quota (Responses)
  | 'permission' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'request_too_large' // 413
  | 'upgrade_required' // 426: a WebSocket upgrade where WebSocket mode is off (clients fall back to HTTP)
  | 'rate_limit' // 429
  | 'api_error' // 500
  | 'bad_gateway' // 502: upstream unreachable, or upstream rejected our own credentials
  | 'overloaded' // 529 (Messages) / 503 (Responses)
  | 'unavailable' // 503: the gateway's own shared state store cannot be reached
  | 'timeout'; // 504

export const ERROR_KINDS: readonly GatewayErrorKind[] = [
  'invalid_request', 'context_overflow', 'authentication', 'billing', 'permission', 'not_found', 'conflict',
  'request_too_large', 'upgrade_required', 'rate_limit', 'api_error', 'bad_gateway', 'overloaded', 'unavailable', 'timeout',
];

interface KindInfo {
  /** Status toward a Messages caller. */
  messagesStatus: number;
  /** Status toward a Responses caller. */
  responsesStatus: number;
  /** Whether the router may retry or fall back on it (before the first byte only). */
  retryable: boolean;
}

export const KIND_INFO: Record<GatewayErrorKind, KindInfo> = {
  invalid_request: { messagesStatus: 400, responsesStatus: 400, retryable: false },
  context_overflow: { messagesStatus: 400, responsesStatus: 400, retryable: false },
  authentication: { messagesStatus: 401, responsesStatus: 401, retryable: false },
  billing: { messagesStatus: 402, responsesStatus: 429, retryable: false },
  permission: { messagesStatus: 403, responsesStatus: 403, retryable: false },
  not_found: { messagesStatus: 404, responsesStatus: 404, retryable: false },
  conflict: { messagesStatus: 409, responsesStatus: 409, retryable: true },
  request_too_large: { messagesStatus: 413, responsesStatus: 413, retryable: false },
  upgrade_required: { messagesStatus: 426, responsesStatus: 426, retryable: false },
  rate_limit: { messagesStatus: 429, responsesStatus: 429, retryable: true },
  api_error: { messagesStatus: 500, responsesStatus: 500, retryable: true },
  bad_gateway: { messagesStatus: 502, responsesStatus: 502, retryable: true },
  // An upstream 503/529 keeps its meaning at both doors, as each vendor says it: Anthropic answers
  // overload with 529 `overloaded_error` (what its clients know as "Overloaded" and retry), OpenAI with
  // 503 `server_is_overloaded`. Never a 500 `api_error`, which reads as a bug rather than "busy".
  overloaded: { messagesStatus: 529, responsesStatus: 503, retryable: true },
  // Not the upstream's overload (529 would make Claude Code report the model as overloaded): the
  // gateway's state store is away; a 503 both SDKs retry.
  unavailable: { messagesStatus: 503, responsesStatus: 503, retryable: true },
  timeout: { messagesStatus: 504, responsesStatus: 504, retryable: true },
};

export interface GatewayErrorOptions {
  /** The request field at fault (Responses `param`), e.g. "messages.2.content". */
  param?: string;
  /** A machine code (Responses `code`), e.g. "model_not_found". */
  code?: string;
  /** Seconds, from the upstream's retry-after. */
  retryAfter?: string;
  retryAfterMs?: string;
  /** The upstream's HTTP status, when the error came from an upstream. */
  upstreamStatus?: number;
  upstreamRequestId?: string;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly kind: GatewayErrorKind;
  readonly param: string | undefined;
  readonly code: string | undefined;
  readonly retryAfter: string | undefined;
  readonly retryAfterMs: string | undefined;
  readonly upstreamStatus: number | undefined;
  readonly upstreamRequestId: string | undefined;

  constructor(kind: GatewayErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.kind = kind;
    this.param = options.param;
    this.code = options.code;
    this.retryAfter = options.retryAfter;
    this.retryAfterMs = options.retryAfterMs;
    this.upstreamStatus = options.upstreamStatus;
    this.upstreamRequestId = options.upstreamRequestId;
  }

  get retryable(): boolean {
    return KIND_INFO[this.kind].retryable;
  }
}

export function invalidRequest(message: string, param?: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/** Upstream HTTP status → error kind (before any vendor-specific refinement by the driver). */
export function kindForUpstreamStatus(status: number): GatewayErrorKind {
  switch (status) {
    case 400:
    case 422:
      return 'invalid_request';
    case 401:
    case 403:
      // Our own upstream credentials were refused: a server misconfiguration, not the caller's fault.
      return 'bad_gateway';
    case 402:
      return 'billing';
    case 404:
      return 'not_found';
    case 408:
    case 504:
      return 'timeout';
    case 409:
      return 'conflict';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit';
    case 503:
    case 529:
      return 'overloaded';
    default:
      return status >= 500 ? (status === 502 ? 'bad_gateway' : 'api_error') : 'invalid_request';
  }
}

/** Any thrown value → GatewayError (unknown failures become api_error without leaking internals). */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('api_error', 'internal gateway error', { cause: err });
}
