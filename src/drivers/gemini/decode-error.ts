// Gemini error bodies → GatewayError (gemini.md §11, mapping.md §16.8). The envelope is `google.rpc.Status`:
// `{error: {code, message, status, details}}`; RESOURCE_EXHAUSTED's RetryInfo becomes retry-after, and an
// invalid API key (a 400 with reason API_KEY_INVALID) is our misconfiguration, not the caller's fault.
import { GatewayError, kindForUpstreamStatus, type GatewayErrorKind } from '../../errors.js';
import type { GeminiErrorBody, GeminiWireError } from '../../protocols/gemini/response.js';
import { header, jsonObject, statusMessage, type ResponseHeaders } from '../error-body.js';

const CONTEXT_OVERFLOW = /input token count.*exceeds the maximum|exceeds the maximum number of tokens|context window|too many tokens/i;

export interface GeminiErrorFacts {
  message: string;
  status: string | undefined;
  code: number | undefined;
  /** Seconds, from a RetryInfo detail. */
  retryAfter: string | undefined;
  /** ErrorInfo `reason` (API_KEY_INVALID, …). */
  reason: string | undefined;
}

export function errorFacts(error: GeminiWireError): GeminiErrorFacts {
  let retryAfter: string | undefined;
  let reason: string | undefined;
  if (Array.isArray(error.details)) {
    for (const d of error.details as Record<string, unknown>[]) {
      if (!d || typeof d !== 'object') continue;
      const type = typeof d['@type'] === 'string' ? d['@type'] : '';
      if (type.endsWith('google.rpc.RetryInfo') && typeof d.retryDelay === 'string') {
        // A protobuf Duration in JSON: "37s", "1.5s".
        const seconds = Number.parseFloat(d.retryDelay);
        if (Number.isFinite(seconds) && seconds >= 0) retryAfter = String(Math.ceil(seconds));
      } else if (type.endsWith('google.rpc.ErrorInfo') && typeof d.reason === 'string') {
        reason = d.reason;
      }
    }
  }
  return {
    message: typeof error.message === 'string' && error.message.length > 0 ? error.message : typeof error.status === 'string' ? error.status : 'upstream error',
    status: typeof error.status === 'string' ? error.status : undefined,
    code: typeof error.code === 'number' ? error.code : undefined,
    retryAfter,
    reason,
  };
}

/** The canonical status names (google.rpc.Code) → error kinds; the HTTP status when there is no name. */
export function geminiErrorKind(f: GeminiErrorFacts, httpStatus: number | undefined): GatewayErrorKind {
  if (f.reason === 'API_KEY_INVALID' || f.reason === 'API_KEY_SERVICE_BLOCKED') return 'bad_gateway';
  switch (f.status) {
    case 'INVALID_ARGUMENT':
    case 'FAILED_PRECONDITION':
    case 'OUT_OF_RANGE':
      return CONTEXT_OVERFLOW.test(f.message) ? 'context_overflow' : 'invalid_request';
    case 'UNAUTHENTICATED':
    case 'PERMISSION_DENIED':
      return 'bad_gateway';
    case 'NOT_FOUND':
      return 'not_found';
    case 'RESOURCE_EXHAUSTED':
      return 'rate_limit';
    case 'ABORTED':
    case 'ALREADY_EXISTS':
      return 'conflict';
    case 'UNAVAILABLE':
      return 'overloaded';
    case 'DEADLINE_EXCEEDED':
      return 'timeout';
    case 'INTERNAL':
    case 'UNKNOWN':
    case 'DATA_LOSS':
    case 'UNIMPLEMENTED':
    case 'CANCELLED':
      return 'api_error';
    default: {
      const status = httpStatus !== undefined && httpStatus >= 400 ? httpStatus : f.code;
      return status !== undefined ? kindForUpstreamStatus(status) : 'api_error';
    }
  }
}

function wireError(obj: Record<string, unknown> | undefined): GeminiWireError | undefined {
  if (!obj) return undefined;
  const e = (obj as GeminiErrorBody).error;
  return e && typeof e === 'object' ? e : undefined;
}

export function decodeGeminiError(status: number, headers: ResponseHeaders, body: string): GatewayError {
  // Some proxies answer with a one-element array around the error (the non-SSE stream form).
  let obj = jsonObject(body);
  if (!obj && body.trimStart().startsWith('[')) {
    try {
      const arr = JSON.parse(body) as unknown[];
      obj = arr[0] && typeof arr[0] === 'object' ? (arr[0] as Record<string, unknown>) : undefined;
    } catch {
      obj = undefined;
    }
  }
  const err = wireError(obj);
  if (!err) {
    return new GatewayError(kindForUpstreamStatus(status), statusMessage(status, body), {
      retryAfter: header(headers, 'retry-after'),
      upstreamStatus: status,
    });
  }
  const facts = errorFacts(err);
  return new GatewayError(geminiErrorKind(facts, status), facts.message, {
    retryAfter: facts.retryAfter ?? header(headers, 'retry-after'),
    upstreamStatus: status,
    upstreamRequestId: header(headers, 'x-request-id'),
  });
}

/** An error frame inside an SSE stream (`data: {"error": {…}}`) → GatewayError, same table. */
export function decodeGeminiStreamError(data: string): GatewayError {
  const err = wireError(jsonObject(data)) ?? {};
  const facts = errorFacts(err);
  return new GatewayError(geminiErrorKind(facts, undefined), facts.message, { retryAfter: facts.retryAfter });
}
