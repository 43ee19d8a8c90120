// IR request → Chat Completions request (chat-completions.md §1, mapping.md §11, §12). Sends only what
// every compatible server understands; what cannot cross is dropped with a warning.
import type { IrRequest, OutputFormat, ReasoningRequest, Warning } from '../../ir/types.js';
import type { ChatCompletionRequest, ChatReasoningEffort, ChatResponseFormat } from '../../protocols/openai-chat/request.js';
import { fitIdentifier, OPENAI_IDENTIFIER_MAX } from '../fit-identifier.js';
import { openaiHeaders } from '../openai-headers.js';
import type { DriverTarget, EncodedRequest } from '../types.js';
import { encodeMessages } from './encode-messages.js';
import { encodeTools } from './encode-tools.js';

/** Chat Completions accepts at most this many stop sequences. */
const MAX_STOP = 4;

export function encodeChatRequest(req: IrRequest, target: DriverTarget, stream: boolean, warnings: Warning[]): EncodedRequest {
  const options = target.options;
  const body: ChatCompletionRequest = { model: target.model, messages: encodeMessages(req, options, warnings) };
  const tools = encodeTools(req);
  if (tools) {
    body.tools = tools.tools;
    if (tools.toolChoice !== undefined) body.tool_choice = tools.toolChoice;
    if (tools.parallelToolCalls === false) body.parallel_tool_calls = false;
  }
  // Never both limit fields: OpenAI reasoning models reject max_tokens, older servers know nothing else.
  if (req.maxOutputTokens !== undefined) body[options.maxTokensField] = req.maxOutputTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) warnings.push({ field: 'top_k', message: 'top_k is not sent to a Chat Completions upstream (OpenAI rejects it)' });
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.presencePenalty !== undefined) body.presence_penalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) body.frequency_penalty = req.frequencyPenalty;
  const stops = req.stopSequences;
  if (stops.length > 0) {
    body.stop = stops.length > MAX_STOP ? stops.slice(0, MAX_STOP) : stops;
    if (stops.length > MAX_STOP) {
      warnings.push({ field: 'stop_sequences', message: `Chat Completions accepts ${MAX_STOP} stop sequences; ${stops.length - MAX_STOP} dropped` });
    }
  }
  const effort = reasoningEffort(req.reasoning);
  if (effort !== undefined) body.reasoning_effort = effort;
  const format = responseFormat(req.outputFormat);
  if (format !== undefined) body.response_format = format;
  // `user`, not `safety_identifier`: only OpenAI knows the latter. OpenAI's 64-character limit
  // (mapping.md §15.52).
  if (req.user !== undefined) body.user = fitIdentifier(req.user, OPENAI_IDENTIFIER_MAX);
  for (const protocol of ['messages', 'responses'] as const) {
    const extras = req.extras[protocol];
    if (!extras) continue;
    const keys = Object.keys(extras);
    if (keys.length > 0) warnings.push({ field: 'extras', message: `${protocol} fields not sent to a Chat Completions upstream: ${keys.join(', ')}` });
  }
  if (stream) {
    body.stream = true;
    // Without it streams carry no usage at all.
    body.stream_options = { include_usage: true };
  }
  return { path: '/chat/completions', headers: openaiHeaders(target), body: JSON.stringify(body) };
}

/** mapping.md §8: an explicit effort wins; a thinking budget maps by size; disabled sends nothing. */
export function reasoningEffort(reasoning: ReasoningRequest | undefined): ChatReasoningEffort | undefined {
  if (!reasoning || reasoning.mode === 'disabled' || reasoning.effort === 'none') return undefined;
  if (reasoning.effort !== undefined) return reasoning.effort;
  const budget = reasoning.budgetTokens;
  if (budget === undefined) return undefined;
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  if (budget <= 24576) return 'high';
  return 'xhigh';
}

function responseFormat(format: OutputFormat | undefined): ChatResponseFormat | undefined {
  if (!format) return undefined;
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const jsonSchema: Extract<ChatResponseFormat, { type: 'json_schema' }>['json_schema'] = { name: format.name ?? 'output', schema: format.schema };
      if (format.description !== undefined) jsonSchema.description = format.description;
      if (format.strict !== undefined) jsonSchema.strict = format.strict;
      return { type: 'json_schema', json_schema: jsonSchema };
    }
    default: {
      const never: never = format;
      return never;
    }
  }
}
