// Anthropic upstream HTTP error → GatewayError (messages.md §13, mapping.md §14). The error type
// decides the kind, the status only when the type is missing or new; context-overflow wording is kept
// verbatim because clients key on it. Proxy pages and plain text are wrapped and cut short.
import { GatewayError, kindForUpstreamStatus, type GatewayErrorKind } from '../../errors.js';
import type { UpstreamStreamEventWire } from '../../protocols/anthropic-messages/upstream-events.js';
import type { UpstreamErrorBodyWire } from '../../protocols/anthropic-messages/upstream-response.js';
import { header, jsonObject, statusMessage, type ResponseHeaders } from '../error-body.js';
import { isContextOverflowMessage, kindForErrorType, streamErrorOf } from './error-kind.js';

function parseBody(body: string): { type: string | undefined; message: string; requestId: string | undefined } | undefined {
  const obj = jsonObject(body) as UpstreamErrorBodyWire | undefined;
  const error = obj?.error;
  if (!obj || !error || typeof error !== 'object') return undefined;
  const type = typeof error.type === 'string' && error.type !== '' ? error.type : undefined;
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : (type ?? 'upstream error');
  return { type, message, requestId: typeof obj.request_id === 'string' ? obj.request_id : undefined };
}

export function decodeMessagesError(status: number, headers: ResponseHeaders, body: string): GatewayError {
  const parsed = parseBody(body);
  let kind: GatewayErrorKind;
  let message: string;
  if (parsed) {
    message = parsed.message;
    kind = kindForErrorType(parsed.type, message) ?? kindForUpstreamStatus(status);
    // A 503 labelled with the generic `api_error` (a proxy, or a compatible server in front of a busy
    // model) is still "unavailable, try later": it keeps its meaning rather than becoming a 500.
    if (kind === 'api_error' && (status === 503 || status === 529)) kind = 'overloaded';
  } else {
    message = statusMessage(status, body);
    kind = kindForUpstreamStatus(status);
  }
  // Never a 5xx or a plain 400: callers must see the overflow to compact instead of retrying.
  if ((kind === 'invalid_request' || kind === 'request_too_large') && isContextOverflowMessage(message)) kind = 'context_overflow';
  return new GatewayError(kind, message, {
    retryAfter: header(headers, 'retry-after'),
    retryAfterMs: header(headers, 'retry-after-ms'),
    upstreamStatus: status,
    upstreamRequestId: header(headers, 'request-id') ?? parsed?.requestId,
  });
}

/** An in-stream `error` frame's data → GatewayError, with the event decoder's table. */
export function decodeMessagesStreamError(data: string): GatewayError {
  const { kind, message } = streamErrorOf(jsonObject(data) as UpstreamStreamEventWire | undefined);
  return new GatewayError(kind, message);
}
