// GatewayError → Google's error envelope `{"error":{"code","message","status","details"}}` (gemini.md
// §11): the HTTP status per kind, Google's status name, and `google.rpc.RetryInfo` for a rate limit
// with a known delay (Google clients read the delay there, not from a header).
import { KIND_INFO, type GatewayError, type GatewayErrorKind } from '../../errors.js';
import type { EncodedError } from '../types.js';

interface GoogleStatus {
  code: number;
  status: string;
}

const STATUSES: Record<GatewayErrorKind, GoogleStatus> = {
  invalid_request: { code: 400, status: 'INVALID_ARGUMENT' },
  context_overflow: { code: 400, status: 'INVALID_ARGUMENT' },
  authentication: { code: 401, status: 'UNAUTHENTICATED' },
  // Google answers an exhausted quota or budget with 429 RESOURCE_EXHAUSTED.
  billing: { code: 429, status: 'RESOURCE_EXHAUSTED' },
  permission: { code: 403, status: 'PERMISSION_DENIED' },
  not_found: { code: 404, status: 'NOT_FOUND' },
  conflict: { code: 409, status: 'ABORTED' },
  request_too_large: { code: 413, status: 'INVALID_ARGUMENT' },
  upgrade_required: { code: 426, status: 'FAILED_PRECONDITION' },
  rate_limit: { code: 429, status: 'RESOURCE_EXHAUSTED' },
  api_error: { code: 500, status: 'INTERNAL' },
  bad_gateway: { code: 502, status: 'UNAVAILABLE' },
  overloaded: { code: 503, status: 'UNAVAILABLE' },
  unavailable: { code: 503, status: 'UNAVAILABLE' },
  timeout: { code: 504, status: 'DEADLINE_EXCEEDED' },
};

/** Status for a kind carried as a string (stream errors); unknown kinds are INTERNAL. */
export function googleStatusFor(kind: string): GoogleStatus {
  return Object.hasOwn(STATUSES, kind) ? STATUSES[kind as GatewayErrorKind] : STATUSES.api_error;
}

/** `{"error":{…}}` as JSON text. `retryAfter` in seconds, when known. */
export function errorBodyJson(kind: string, message: string, retryAfter?: string): string {
  const { code, status } = googleStatusFor(kind);
  const error: Record<string, unknown> = { code, message, status };
  const seconds = retryAfter !== undefined ? Number(retryAfter) : NaN;
  if (status === 'RESOURCE_EXHAUSTED' && Number.isFinite(seconds) && seconds >= 0) {
    error.details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` }];
  }
  return JSON.stringify({ error });
}

export function encodeError(err: GatewayError, _requestId: string): EncodedError {
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers['retry-after'] = err.retryAfter;
  if (!KIND_INFO[err.kind].retryable) headers['x-should-retry'] = 'false';
  return { status: googleStatusFor(err.kind).code, body: errorBodyJson(err.kind, err.message, err.retryAfter), headers };
}
