// Responses upstream HTTP error → GatewayError (responses.md §10). The OpenAI envelope is
// {error:{message,type,param,code}}; anything else (proxy HTML, plain text) is wrapped and truncated.
import { GatewayError, kindForUpstreamStatus } from '../../errors.js';
import type { ErrorBodyWire, ErrorWire } from '../../protocols/openai-responses/upstream-response.js';
import { errorFacts, kindForFacts, type ErrorFacts } from './error-kind.js';

const MAX_TEXT = 500;

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function factsFromBody(body: string, fallback: string): ErrorFacts | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const obj = parsed as ErrorBodyWire;
  if (obj.error && (typeof obj.error === 'object' || typeof obj.error === 'string')) return errorFacts(obj.error, fallback);
  // A bare error object without the envelope (some compatible servers).
  if (typeof obj.message === 'string') return errorFacts(obj as ErrorWire, fallback);
  return undefined;
}

/** Proxy pages and plain text: tags and runs of whitespace removed, cut to a readable length. */
function plainText(body: string): string {
  const text = body.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) + '…' : text;
}

export function decodeResponsesError(status: number, headers: Headers, body: string): GatewayError {
  const fallback = `upstream answered HTTP ${status}`;
  const facts = factsFromBody(body, fallback);
  const f = facts ?? { message: fallback + (body.trim() ? ': ' + plainText(body) : ''), type: undefined, code: undefined, param: undefined };
  const kind = kindForFacts(f) ?? kindForUpstreamStatus(status);
  return new GatewayError(kind, f.message, {
    param: f.param,
    code: f.code,
    retryAfter: header(headers, 'retry-after'),
    retryAfterMs: header(headers, 'retry-after-ms'),
    upstreamStatus: status,
    upstreamRequestId: header(headers, 'x-request-id'),
  });
}
