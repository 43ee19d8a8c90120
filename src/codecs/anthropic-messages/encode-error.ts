// GatewayError → Messages error envelope (messages.md §13, mapping.md §14): status per kind, the
// Anthropic `error.type`, retry headers, and the context-overflow wording Claude Code keys on.
import { KIND_INFO, type GatewayError, type GatewayErrorKind } from '../../errors.js';
import type { EncodedError } from '../types.js';

const ERROR_TYPES: Record<GatewayErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  context_overflow: 'invalid_request_error',
  authentication: 'authentication_error',
  billing: 'billing_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  conflict: 'conflict_error',
  request_too_large: 'request_too_large',
  upgrade_required: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  api_error: 'api_error',
  bad_gateway: 'api_error',
  overloaded: 'overloaded_error',
  unavailable: 'api_error',
  timeout: 'timeout_error',
};

/** Anthropic `error.type` for a kind; unknown kinds (stream errors carry a string) are `api_error`. */
export function errorTypeFor(kind: string): string {
  return Object.hasOwn(ERROR_TYPES, kind) ? ERROR_TYPES[kind as GatewayErrorKind] : 'api_error';
}

const OVERFLOW_MARK = 'prompt is too long';

/** The message a Messages client sees: context overflows always say "prompt is too long". */
export function errorMessageFor(kind: string, message: string): string {
  if (kind === 'context_overflow' && !message.includes(OVERFLOW_MARK)) return OVERFLOW_MARK + ': ' + message;
  return message;
}

/** `{"type":"error","error":{…}}` (plus `request_id` when given), as JSON text. */
export function errorBodyJson(kind: string, message: string, requestId?: string): string {
  let json =
    '{"type":"error","error":{"type":"' +
    errorTypeFor(kind) +
    '","message":' +
    JSON.stringify(errorMessageFor(kind, message)) +
    '}';
  if (requestId !== undefined) json += ',"request_id":' + JSON.stringify(requestId);
  return json + '}';
}

export function encodeError(err: GatewayError, requestId: string): EncodedError {
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers['retry-after'] = err.retryAfter;
  if (err.retryAfterMs !== undefined) headers['retry-after-ms'] = err.retryAfterMs;
  const info = KIND_INFO[err.kind];
  if (!info.retryable) headers['x-should-retry'] = 'false';
  return { status: info.messagesStatus, body: errorBodyJson(err.kind, err.message, requestId), headers };
}
