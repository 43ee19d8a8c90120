// Chat upstream HTTP error → GatewayError. Parses the OpenAI envelope, vLLM's bare error object,
// OpenRouter's numeric codes, Ollama's string error and FastAPI's `detail`; anything else (proxy HTML,
// plain text) is wrapped and truncated.
import { GatewayError } from '../../errors.js';
import type { ChatErrorBody } from '../../protocols/openai-chat/response.js';
import { chatErrorKind, errorFacts, type ChatErrorFacts } from './classify-error.js';

const MAX_TEXT = 500;

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function factsFromBody(body: string): ChatErrorFacts | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const obj = parsed as ChatErrorBody;
  if (obj.error && (typeof obj.error === 'object' || typeof obj.error === 'string')) return errorFacts(obj.error);
  if (typeof obj.message === 'string') return errorFacts(obj); // vLLM: {object:"error", message, type, code}
  if (typeof obj.detail === 'string') return errorFacts(obj.detail);
  return undefined;
}

/** Proxy pages and plain text: tags and runs of whitespace removed, cut to a readable length. */
function plainText(body: string): string {
  const text = body.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) + '…' : text;
}

export function decodeChatError(status: number, headers: Headers, body: string): GatewayError {
  const facts = factsFromBody(body);
  const message = facts ? facts.message : `upstream answered HTTP ${status}` + (body.trim() ? ': ' + plainText(body) : '');
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
