// Anthropic `error.type` → gateway error kind, shared by the HTTP error path (decode-error.ts) and the
// in-stream `error` event (decode-events.ts), so a context overflow is recognized either way.
import type { GatewayErrorKind } from '../../errors.js';
import type { UpstreamStreamEventWire } from '../../protocols/anthropic-messages/upstream-events.js';

/** The two wordings Claude Code keys auto-compaction on (messages.md §13); kept verbatim downstream. */
const CONTEXT_OVERFLOW = /prompt is too long|input length and `?max_tokens`? exceed context limit/i;

export function isContextOverflowMessage(message: string): boolean {
  return CONTEXT_OVERFLOW.test(message);
}

/** Kind for a known error type; undefined when the type is missing or new. */
export function kindForErrorType(type: string | undefined, message: string): GatewayErrorKind | undefined {
  switch (type) {
    case 'invalid_request_error':
      return isContextOverflowMessage(message) ? 'context_overflow' : 'invalid_request';
    case 'authentication_error':
    case 'permission_error':
      // The upstream refused our own credentials: a gateway misconfiguration, not the caller's fault.
      return 'bad_gateway';
    case 'billing_error':
      return 'billing';
    case 'not_found_error':
      return 'not_found';
    case 'conflict_error':
      return 'conflict';
    case 'request_too_large':
      return 'request_too_large';
    case 'rate_limit_error':
      return 'rate_limit';
    case 'api_error':
      return 'api_error';
    case 'timeout_error':
      return 'timeout';
    case 'overloaded_error':
      return 'overloaded';
    default:
      return undefined;
  }
}

/** An in-stream `error` event → its kind and message (the event decoder and the pass-through relay). */
export function streamErrorOf(ev: UpstreamStreamEventWire | undefined): { kind: GatewayErrorKind; message: string } {
  const error = ev?.error && typeof ev.error === 'object' ? ev.error : undefined;
  const type = typeof error?.type === 'string' && error.type !== '' ? error.type : undefined;
  const message = (typeof error?.message === 'string' && error.message !== '' ? error.message : undefined) ?? type ?? 'upstream stream error';
  return { kind: kindForErrorType(type, message) ?? 'api_error', message };
}
