// What an error may say to the caller. Vendors quote a key's prefix and suffix in their "invalid key"
// errors, and an upstream 401/403 is about the gateway's own credentials, never the caller's key: the
// caller gets a fixed message that blames nobody it could act on, with no vendor code (an
// `invalid_api_key` code would make the caller's SDK report its own key as wrong). Everything else
// keeps its text with configured secrets and credential-shaped tokens masked (the logger's masker).
import { GatewayError } from '../errors.js';

/** An upstream refused the gateway's credentials: the caller's answer (the upstream's own text stays the cause, for the log). */
export function upstreamCredentialsRefused(provider: string, status: number, upstream: GatewayError): GatewayError {
  return new GatewayError('bad_gateway', `upstream ${provider} rejected the gateway's credentials (HTTP ${status}); the gateway's operator must fix its provider key`, {
    upstreamStatus: status,
    upstreamRequestId: upstream.upstreamRequestId,
    cause: upstream,
  });
}

/** Whether an upstream's error answer is about the gateway's own credentials: a 401 or 403, or any other
 * 4xx its driver or platform reads as `bad_gateway` (Gemini's 400 `API_KEY_INVALID`). */
export function refusesGatewayCredentials(status: number, err: GatewayError): boolean {
  return status === 401 || status === 403 || (err.kind === 'bad_gateway' && status >= 400 && status < 500);
}

/** `err` with its message masked; the same object when there was nothing to mask. */
export function maskedForCaller(err: GatewayError, mask: (text: string) => string): GatewayError {
  const message = mask(err.message);
  if (message === err.message) return err;
  return new GatewayError(err.kind, message, {
    param: err.param,
    code: err.code,
    retryAfter: err.retryAfter,
    retryAfterMs: err.retryAfterMs,
    upstreamStatus: err.upstreamStatus,
    upstreamRequestId: err.upstreamRequestId,
    cause: err,
  });
}
