// Non-streamed `chat.completion` body → IrResult, in the order a stream would have produced it:
// reasoning, text, refusal, tool calls.
import { GatewayError } from '../../errors.js';
import { ToolLookup } from '../../ir/tool-names.js';
import { emptyUsage, type IrRequest, type IrResult, type OutputPart } from '../../ir/types.js';
import type { ChatCompletion, ChatResponseMessage } from '../../protocols/openai-chat/response.js';
import { CallIdAllocator } from './call-ids.js';
import { chatErrorKind, errorFacts } from './classify-error.js';
import { mapFinishReason } from './map-finish.js';
import { mapChatUsage } from './map-usage.js';
import { argumentsText, CHAT_TOOL_NAME_MAX, unwrapCustomInput } from './tool-lookup.js';

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** `content` is a string per the spec; a few servers answer with `[{type:"text", text}]`. */
function contentText(content: ChatResponseMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) if (part && typeof part.text === 'string') text += part.text;
  return text;
}

export function decodeChatResult(json: unknown, req: IrRequest): IrResult {
  if (!json || typeof json !== 'object') throw new GatewayError('api_error', 'upstream sent a malformed chat.completion body');
  const body = json as ChatCompletion;
  // OpenRouter answers HTTP 200 with an error body when the failure came after processing began.
  if (body.error !== undefined && body.error !== null) {
    const facts = errorFacts(body.error);
    throw new GatewayError(chatErrorKind(facts, undefined), facts.message, { code: facts.code, param: facts.param, upstreamStatus: facts.status });
  }
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!choice || typeof choice !== 'object') throw new GatewayError('api_error', 'upstream sent a chat.completion without choices');
  const message: ChatResponseMessage = choice.message ?? {};
  const id = typeof body.id === 'string' ? body.id : '';
  const content: OutputPart[] = [];

  const reasoning = nonEmpty(message.reasoning_content) ?? nonEmpty(message.reasoning);
  if (reasoning !== undefined) content.push({ type: 'reasoning', text: reasoning, carry: { family: 'chat', text: reasoning } });
  const text = contentText(message.content);
  if (text.length > 0) content.push({ type: 'text', text });
  const refusal = nonEmpty(message.refusal);
  if (refusal !== undefined) content.push({ type: 'text', text: refusal, refusal: true });

  let calls = 0;
  if (Array.isArray(message.tool_calls)) {
    const ids = new CallIdAllocator(id);
    const tools = new ToolLookup(req.tools, CHAT_TOOL_NAME_MAX);
    for (const call of message.tool_calls) {
      if (!call || typeof call !== 'object') continue;
      // OpenAI custom tool calls carry their raw input already; function calls may wrap a custom tool.
      const custom = call.type === 'custom' && call.custom ? call.custom : undefined;
      const wireName = (custom ? custom.name : call.function?.name) ?? '';
      const tool = tools.resolve(wireName);
      const raw = custom ? (custom.input ?? '') : argumentsText(call.function?.arguments);
      const kind = custom ? 'custom' : tool.kind;
      const args = kind === 'custom' && !custom ? unwrapCustomInput(raw) : raw;
      const part: OutputPart = { type: 'tool-call', id: ids.next(call.id), name: tool.name, arguments: args, kind };
      if (tool.namespace !== undefined) part.namespace = tool.namespace;
      content.push(part);
      calls++;
    }
  }

  const raw = typeof choice.finish_reason === 'string' && choice.finish_reason.length > 0 ? choice.finish_reason : null;
  const finish = mapFinishReason(raw, calls > 0);
  if (!finish) throw new GatewayError('api_error', `upstream ended the generation with finish_reason "${raw}"`);
  return {
    id,
    model: typeof body.model === 'string' ? body.model : '',
    content,
    finish,
    usage: body.usage && typeof body.usage === 'object' ? mapChatUsage(body.usage) : emptyUsage(),
  };
}
