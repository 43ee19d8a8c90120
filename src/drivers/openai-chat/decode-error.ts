// Chat upstream HTTP error → GatewayError. Parses the OpenAI envelope, vLLM's bare error object,
// OpenRouter's numeric codes, Ollama's string error and FastAPI's `detail`; anything else (proxy HTML,
// plain text) is wrapped and truncated.
import { GatewayError } from '../../errors.js';
import type { ChatErrorBody, ChatWireError } from '../../protocols/openai-chat/response.js';
import { header, jsonObject, statusMessage, type ResponseHeaders } from '../error-body.js';
import { chatErrorKind, errorFacts, type ChatErrorFacts } from './classify-error.js';

function factsFromBody(body: string): ChatErrorFacts | undefined {
  const obj = jsonObject(body) as ChatErrorBody | undefined;
  if (!obj) return undefined;
  if (obj.error && (typeof obj.error === 'object' || typeof obj.error === 'string')) return errorFacts(obj.error);
  if (typeof obj.message === 'string') return errorFacts(obj); // vLLM: {object:"error", message, type, code}
  if (typeof obj.detail === 'string') return errorFacts(obj.detail);
  return undefined;
}

export function decodeChatError(status: number, headers: ResponseHeaders, body: string): GatewayError {
  const facts = factsFromBody(body);
  const message = facts ? facts.message : statusMessage(status, body);
  const kind = facts
    ? chatErrorKind(facts, status)
    : chatErrorKind({ message, type: undefined, code: undefined, param: undefined, status: undefined, detail: undefined }, status);
  return new GatewayError(kind, message, {
    param: facts?.param,
    code: facts?.code,
    retryAfter: header(headers, 'retry-after'),
    retryAfterMs: header(headers, 'retry-after-ms'),
    upstreamStatus: status,
    upstreamRequestId: header(headers, 'x-request-id'),
  });
}

/** An in-stream error chunk's data → GatewayError, with the event decoder's table. */
export function decodeChatStreamError(data: string): GatewayError {
  const obj = (jsonObject(data) ?? {}) as ChatErrorBody;
  const facts = errorFacts(obj.error && (typeof obj.error === 'object' || typeof obj.error === 'string') ? obj.error : (obj as ChatWireError));
  return new GatewayError(chatErrorKind(facts, undefined), facts.message, { code: facts.code, param: facts.param });
}
