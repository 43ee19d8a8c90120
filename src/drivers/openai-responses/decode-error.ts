// Responses upstream HTTP error → GatewayError (responses.md §10). The OpenAI envelope is
// {error:{message,type,param,code}}; anything else (proxy HTML, plain text) is wrapped and truncated.
import { GatewayError, kindForUpstreamStatus } from '../../errors.js';
import type { StreamEventWire } from '../../protocols/openai-responses/upstream-events.js';
import type { ErrorBodyWire, ErrorWire } from '../../protocols/openai-responses/upstream-response.js';
import { header, jsonObject, statusMessage, type ResponseHeaders } from '../error-body.js';
import { errorFacts, kindForFacts, streamErrorOf, type ErrorFacts } from './error-kind.js';

function factsFromBody(body: string, fallback: string): ErrorFacts | undefined {
  const obj = jsonObject(body) as ErrorBodyWire | undefined;
  if (!obj) return undefined;
  if (obj.error && (typeof obj.error === 'object' || typeof obj.error === 'string')) return errorFacts(obj.error, fallback);
  // A bare error object without the envelope (some compatible servers).
  if (typeof obj.message === 'string') return errorFacts(obj as ErrorWire, fallback);
  return undefined;
}

export function decodeResponsesError(status: number, headers: ResponseHeaders, body: string): GatewayError {
  const facts = factsFromBody(body, `upstream answered HTTP ${status}`);
  const f = facts ?? { message: statusMessage(status, body), type: undefined, code: undefined, param: undefined };
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

/** An in-stream `error` or `response.failed` frame's data → GatewayError, with the event decoder's
 * table (an `invalid_prompt` is not retried whichever lane sees it). */
export function decodeResponsesStreamError(data: string): GatewayError {
  const { facts, kind } = streamErrorOf((jsonObject(data) ?? {}) as StreamEventWire);
  return new GatewayError(kind, facts.message, { code: facts.code, param: facts.param });
}
