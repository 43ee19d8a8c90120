// Chat upstream error objects → gateway error kinds. One place for both the HTTP error path
// (decode-error.ts) and in-stream error chunks (decode-events.ts), so a context overflow is recognized
// the same way whichever way it arrives.
import { kindForUpstreamStatus, type GatewayErrorKind } from '../../errors.js';
import type { ChatWireError } from '../../protocols/openai-chat/response.js';

/** The fields of an error object every shape reduces to. */
export interface ChatErrorFacts {
  message: string;
  type: string | undefined;
  /** String codes (`context_length_exceeded`, `insufficient_quota`); numeric codes go to `status`. */
  code: string | undefined;
  param: string | undefined;
  /** A numeric `code` (vLLM, OpenRouter) is an HTTP-like status. */
  status: number | undefined;
  /** Extra text that may reveal the cause (OpenRouter `metadata.raw`: the provider's own body). */
  detail: string | undefined;
}

const CONTEXT_OVERFLOW =
  /maximum context length|context[ _]length[ _]exceeded|context_window_exceeded|exceed_context_size|exceeds the available context size|longer than the maximum model length|prompt is too long|exceeds? (?:the )?(?:model'?s? )?context window/i;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function errorFacts(error: ChatWireError | string): ChatErrorFacts {
  if (typeof error === 'string') {
    return { message: error, type: undefined, code: undefined, param: undefined, status: undefined, detail: undefined };
  }
  const code = error.code;
  const metadata = error.metadata;
  const raw = metadata && typeof metadata === 'object' ? (metadata as { raw?: unknown }).raw : undefined;
  return {
    message: str(error.message) ?? str(error.type) ?? 'upstream error',
    type: str(error.type),
    code: str(code),
    param: str(error.param),
    status: typeof code === 'number' && code >= 100 && code <= 599 ? code : undefined,
    detail: typeof raw === 'string' ? raw : raw !== undefined && raw !== null ? JSON.stringify(raw) : undefined,
  };
}

function isContextOverflow(f: ChatErrorFacts): boolean {
  if (f.code === 'context_length_exceeded' || f.type === 'context_length_exceeded' || f.type === 'exceed_context_size_error') return true;
  return CONTEXT_OVERFLOW.test(f.message) || (f.detail !== undefined && CONTEXT_OVERFLOW.test(f.detail));
}

/** Kind from the vendor's string type/code when no usable HTTP status is known. */
function kindForType(name: string | undefined): GatewayErrorKind | undefined {
  switch (name) {
    case 'rate_limit_exceeded':
    case 'rate_limit_error':
    case 'RateLimitError':
      return 'rate_limit';
    case 'invalid_request_error':
    case 'BadRequestError':
    case 'invalid_request':
      return 'invalid_request';
    case 'not_found_error':
    case 'NotFoundError':
    case 'model_not_found':
      return 'not_found';
    case 'authentication_error':
    case 'permission_error':
    case 'invalid_api_key':
      // Our own upstream credentials: a gateway misconfiguration, not the caller's fault.
      return 'bad_gateway';
    case 'overloaded_error':
    case 'server_overloaded':
    case 'service_unavailable':
      return 'overloaded';
    case 'timeout':
    case 'timeout_error':
      return 'timeout';
    default:
      return undefined;
  }
}

/** `httpStatus` is the response status on the HTTP path; undefined (or 200) inside a stream. */
export function chatErrorKind(f: ChatErrorFacts, httpStatus: number | undefined): GatewayErrorKind {
  const status = httpStatus !== undefined && httpStatus >= 400 ? httpStatus : f.status;
  // Never a 5xx: callers would retry the same oversized prompt forever.
  if (status !== 429 && isContextOverflow(f)) return 'context_overflow';
  if (f.code === 'insufficient_quota' || f.type === 'insufficient_quota') return 'billing';
  if (status !== undefined) return kindForUpstreamStatus(status);
  return kindForType(f.code) ?? kindForType(f.type) ?? 'api_error';
}
