// Responses error codes → gateway error kinds, shared by HTTP errors (decode-error.ts), failed
// responses and in-stream `error` events, so a context overflow is recognized however it arrives.
import type { GatewayErrorKind } from '../../errors.js';
import type { StreamEventWire } from '../../protocols/openai-responses/upstream-events.js';
import type { ErrorWire, ResponseWire } from '../../protocols/openai-responses/upstream-response.js';

/** What every error shape reduces to. */
export interface ErrorFacts {
  message: string;
  type: string | undefined;
  code: string | undefined;
  param: string | undefined;
}

// Seen without a code from OpenAI-compatible servers; OpenAI itself also says "exceeds the context window".
const CONTEXT_OVERFLOW = /context[ _]length[ _]exceeded|maximum context length|exceeds? the context window/i;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function errorFacts(error: ErrorWire | string | null | undefined, fallback: string): ErrorFacts {
  if (typeof error === 'string') return { message: error || fallback, type: undefined, code: undefined, param: undefined };
  if (!error || typeof error !== 'object') return { message: fallback, type: undefined, code: undefined, param: undefined };
  return { message: str(error.message) ?? fallback, type: str(error.type), code: str(error.code), param: str(error.param) };
}

/** The kind the vendor's code/type names; undefined when they name nothing we distinguish. */
export function kindForFacts(f: ErrorFacts): GatewayErrorKind | undefined {
  // Never a 5xx: callers would retry the same oversized prompt forever.
  if (f.code === 'context_length_exceeded' || f.type === 'context_length_exceeded' || CONTEXT_OVERFLOW.test(f.message)) {
    return 'context_overflow';
  }
  const name = f.code ?? f.type;
  switch (name) {
    case 'insufficient_quota':
      return 'billing';
    case 'rate_limit_exceeded':
    case 'rate_limit_error':
      return 'rate_limit';
    case 'server_is_overloaded':
    case 'slow_down':
      return 'overloaded';
    case 'model_not_found':
      return 'not_found';
    case 'invalid_prompt':
    case 'invalid_image':
    case 'invalid_image_format':
    case 'invalid_base64_image':
    case 'invalid_image_url':
    case 'image_too_large':
    case 'image_too_small':
    case 'image_parse_error':
    case 'image_content_policy_violation':
    case 'invalid_image_mode':
    case 'image_file_too_large':
    case 'unsupported_image_media_type':
    case 'empty_image_file':
    case 'failed_to_download_image':
    case 'image_file_not_found':
      // The same input fails the same way again: not worth a retry or a fallback.
      return 'invalid_request';
    default:
      return f.type === 'insufficient_quota' ? 'billing' : undefined;
  }
}

/** A `response.failed` event's response → its facts and kind. */
export function failedResponseError(response: ResponseWire | null | undefined): { facts: ErrorFacts; kind: GatewayErrorKind } {
  const facts = errorFacts(response?.error, 'upstream response failed');
  return { facts, kind: kindForFacts(facts) ?? 'api_error' };
}

/** An in-stream `error` event → its facts and kind. Open Responses nests the fields under `error`;
 * the OpenAI SDK type has them flat. */
export function errorEventError(ev: StreamEventWire): { facts: ErrorFacts; kind: GatewayErrorKind } {
  const facts = errorFacts(ev.error && typeof ev.error === 'object' ? ev.error : (ev as ErrorWire), 'upstream stream error');
  return { facts, kind: kindForFacts(facts) ?? 'api_error' };
}

/** Either failure frame, told apart by its `type` (the event decoder and the pass-through relay). */
export function streamErrorOf(ev: StreamEventWire): { facts: ErrorFacts; kind: GatewayErrorKind } {
  return ev.type === 'response.failed' ? failedResponseError(ev.response) : errorEventError(ev);
}
