// Chat Completions create body → IR request (chat-completions.md §9). Validation first (compiled
// TypeBox, then the whole-request rules: request-validation.ts), then one pass over the top-level keys:
// mapped keys become IR fields; keys the IR cannot carry are reported as dropped (a translation loses
// them; a pass-through deployment clears these warnings and gets the caller's body as sent); and the
// few a translation cannot honour at all (`n > 1`, `logprobs`, audio, predictions, web search) mark
// the request pass-through only (IrRequest.passthroughOnly): a 400 naming the field unless the
// deployment speaks Chat Completions.
import { HTTPS_ONLY, type MediaUrlRule } from '../../ir/media-url.js';
import type { IrRequest, OutputFormat, Warning } from '../../ir/types.js';
import type { ChatCompletionsRequestBody, ResponseFormatBody } from '../../protocols/openai-chat/door-request.js';
import { decodeMessages } from './decode-messages.js';
import { decodeLegacyFunctionCall, decodeLegacyFunctions, decodeToolChoice, decodeTools } from './decode-tools.js';
import { validateRequest } from './request-validation.js';

/** Top-level keys decoded into IR fields (or judged below); every other key is reported as dropped. */
const MAPPED = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'top_k',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'stop',
  'response_format',
  'reasoning_effort',
  'stream',
  'stream_options',
  'user',
  'safety_identifier',
  'metadata',
  'n',
  'logprobs',
  'top_logprobs',
  'modalities',
  'audio',
  'prediction',
  'web_search_options',
]);

export function decodeRequest(body: unknown, warnings: Warning[], mediaUrls: MediaUrlRule = HTTPS_ONLY): IrRequest {
  const b = validateRequest(body);
  const ir: IrRequest = {
    model: b.model,
    system: [],
    turns: [],
    tools: [],
    toolChoice: undefined,
    parallelToolCalls: b.parallel_tool_calls ?? undefined,
    maxOutputTokens: b.max_completion_tokens ?? b.max_tokens ?? undefined,
    temperature: b.temperature ?? undefined,
    topP: b.top_p ?? undefined,
    topK: b.top_k ?? undefined,
    seed: b.seed ?? undefined,
    presencePenalty: b.presence_penalty ?? undefined,
    frequencyPenalty: b.frequency_penalty ?? undefined,
    stopSequences: b.stop == null ? [] : typeof b.stop === 'string' ? [b.stop] : b.stop,
    reasoning: b.reasoning_effort != null ? { effort: b.reasoning_effort } : undefined,
    outputFormat: b.response_format != null ? decodeFormat(b.response_format) : undefined,
    user: b.safety_identifier ?? b.user ?? undefined,
    metadata: b.metadata ?? undefined,
    stream: b.stream === true,
    sourceProtocol: 'chat',
    extras: {},
  };
  if (ir.stream && b.stream_options?.include_usage === true) ir.streamUsage = true;
  markPassthroughOnly(b, ir);
  decodeMessages(b.messages, ir, warnings, mediaUrls);
  if (b.tools != null) ir.tools = decodeTools(b.tools);
  if (b.functions != null && b.functions.length > 0) ir.tools = [...ir.tools, ...decodeLegacyFunctions(b.functions)];
  if (b.tool_choice != null) ir.toolChoice = decodeToolChoice(b.tool_choice);
  else if (b.function_call != null) ir.toolChoice = decodeLegacyFunctionCall(b.function_call);

  for (const key in b) {
    if (MAPPED.has(key) || (b as Record<string, unknown>)[key] == null) continue;
    warnings.push({ field: DROPPED_FIELDS.has(key) ? key : 'other', message: `${key} is not translated to this upstream's protocol; dropped` });
  }
  return ir;
}

/** Chat fields other protocols lack, named in warnings; any other key is counted as `other` (bounded field names). */
const DROPPED_FIELDS = new Set(['logit_bias', 'prompt_cache_key', 'store', 'service_tier', 'verbosity']);

/** The first field only a Chat Completions upstream can honour. */
function markPassthroughOnly(b: ChatCompletionsRequestBody, ir: IrRequest): void {
  const only = (param: string, what: string): void => {
    ir.passthroughOnly ??= { param, message: `Invalid '${param}': ${what} is only supported when the model is served by a Chat Completions upstream; model '${b.model}' is not.` };
  };
  if (b.n != null && b.n > 1) only('n', 'more than one choice');
  if (b.logprobs === true) only('logprobs', 'logprobs');
  if (b.top_logprobs != null && b.top_logprobs > 0) only('top_logprobs', 'logprobs');
  if (b.modalities != null && b.modalities.includes('audio')) only('modalities', 'audio output');
  if (b.audio != null) only('audio', 'audio output');
  if (b.prediction != null) only('prediction', 'a predicted output');
  if (b.web_search_options != null) only('web_search_options', 'web search');
}

function decodeFormat(f: ResponseFormatBody): OutputFormat {
  switch (f.type) {
    case 'text':
    case 'json_object':
      return { type: f.type };
    case 'json_schema': {
      const s = f.json_schema;
      const out: OutputFormat = { type: 'json_schema', name: s.name, schema: (s.schema as Record<string, unknown> | null | undefined) ?? { type: 'object' } };
      if (s.description != null) out.description = s.description;
      if (s.strict != null) out.strict = s.strict;
      return out;
    }
    default: {
      const never: never = f;
      return never;
    }
  }
}
