// Anthropic upstream HTTP error → GatewayError (messages.md §13, mapping.md §14). The error type
// decides the kind, the status only when the type is missing or new; context-overflow wording is kept
// verbatim because clients key on it. Proxy pages and plain text are wrapped and cut short.
import { GatewayError, kindForUpstreamStatus, type GatewayErrorKind } from '../../errors.js';
import type { UpstreamErrorBodyWire } from '../../protocols/anthropic-messages/upstream-response.js';
import { isContextOverflowMessage, kindForErrorType } from './error-kind.js';

const MAX_TEXT = 500;

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseBody(body: string): { type: string | undefined; message: string; requestId: string | undefined } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const obj = parsed as UpstreamErrorBodyWire;
  const error = obj.error;
  if (!error || typeof error !== 'object') return undefined;
  const type = typeof error.type === 'string' && error.type !== '' ? error.type : undefined;
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : (type ?? 'upstream error');
  return { type, message, requestId: typeof obj.request_id === 'string' ? obj.request_id : undefined };
}

/** Proxy pages and plain text: tags and runs of whitespace removed, cut to a readable length. */
function plainText(body: string): string {
  const text = body.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) + '…' : text;
}

export function decodeMessagesError(status: number, headers: Headers, body: string): GatewayError {
  const parsed = parseBody(body);
  let kind: GatewayErrorKind;
  let message: string;
  if (parsed) {
    message = parsed.message;
    kind = kindForErrorType(parsed.type, message) ?? kindForUpstreamStatus(status);
  } else {
    const text = plainText(body);
    message = `upstream answered HTTP ${status}` + (text ? ': ' + text : '');
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
