// The `POST /v1/chat/completions` body a caller sends (chat-completions.md §9; openai SDK 6.49
// `ChatCompletionCreateParams`). Checks the fields the gateway translates; every other top-level key is
// allowed (a pass-through deployment gets it verbatim, vLLM's and OpenRouter's extensions included) and
// reported as dropped on a translation. Closed unions (roles, part types, tool types) refuse what the
// API refuses, so a typo is a 400 naming the field instead of a silently different request.
import { Type, type Static } from '@sinclair/typebox';
import { Enum, Nullable } from '../openai-responses/common.js';

/** Function names as the API takes them (1–64 of these characters). */
const FunctionName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' });

/** Longer names are no model anyone serves; unbounded, they grow logs, headers and health tables. */
export const MAX_MODEL_NAME_LENGTH = 256;
/** No model writes a million tokens in one answer (1e300 parses as an integer). */
export const MAX_TOKENS_CEILING = 1_000_000;

export const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() });
const RefusalPart = Type.Object({ type: Type.Literal('refusal'), refusal: Type.String() });

export const ImageUrlPart = Type.Object({
  type: Type.Literal('image_url'),
  image_url: Type.Object({ url: Type.String({ minLength: 1 }), detail: Type.Optional(Nullable(Enum(['auto', 'low', 'high']))) }),
});

export const InputAudioPart = Type.Object({
  type: Type.Literal('input_audio'),
  input_audio: Type.Object({ data: Type.String(), format: Type.String() }),
});

export const FilePart = Type.Object({
  type: Type.Literal('file'),
  file: Type.Object({
    file_data: Type.Optional(Nullable(Type.String())),
    file_id: Type.Optional(Nullable(Type.String())),
    filename: Type.Optional(Nullable(Type.String())),
  }),
});

export const UserContentPart = Type.Union([TextPart, ImageUrlPart, InputAudioPart, FilePart]);

const TextContent = Type.Union([Type.String(), Type.Array(TextPart)]);

export const SystemMessage = Type.Object({
  role: Enum(['system', 'developer']),
  content: TextContent,
  name: Type.Optional(Nullable(Type.String())),
});

export const UserMessage = Type.Object({
  role: Type.Literal('user'),
  content: Type.Union([Type.String(), Type.Array(UserContentPart)]),
  name: Type.Optional(Nullable(Type.String())),
});

export const FunctionToolCall = Type.Object({
  id: Type.String({ minLength: 1 }),
  type: Type.Literal('function'),
  function: Type.Object({ name: Type.String({ minLength: 1 }), arguments: Type.String() }),
});

export const CustomToolCall = Type.Object({
  id: Type.String({ minLength: 1 }),
  type: Type.Literal('custom'),
  custom: Type.Object({ name: Type.String({ minLength: 1 }), input: Type.String() }),
});

/** OpenRouter's `reasoning_details` entries (docs/protocols/chat-completions.md §10): checked by the
 * decoder, which restores only the entries it recognises. */
export const ReasoningDetail = Type.Object({ type: Type.String() });

export const AssistantMessage = Type.Object({
  role: Type.Literal('assistant'),
  content: Type.Optional(Nullable(Type.Union([Type.String(), Type.Array(Type.Union([TextPart, RefusalPart]))]))),
  refusal: Type.Optional(Nullable(Type.String())),
  tool_calls: Type.Optional(Nullable(Type.Array(Type.Union([FunctionToolCall, CustomToolCall])))),
  /** Legacy single call (before `tool_calls`). */
  function_call: Type.Optional(Nullable(Type.Object({ name: Type.String({ minLength: 1 }), arguments: Type.String() }))),
  /** DeepSeek / Qwen / vLLM ≤0.8 reasoning text; `reasoning` is vLLM ≥0.9's and OpenRouter's name. */
  reasoning_content: Type.Optional(Nullable(Type.String())),
  reasoning: Type.Optional(Nullable(Type.String())),
  reasoning_details: Type.Optional(Nullable(Type.Array(ReasoningDetail))),
  name: Type.Optional(Nullable(Type.String())),
});

export const ToolMessage = Type.Object({
  role: Type.Literal('tool'),
  tool_call_id: Type.String({ minLength: 1 }),
  content: TextContent,
});

/** Legacy result of a `function_call`. */
export const FunctionMessage = Type.Object({
  role: Type.Literal('function'),
  name: Type.String({ minLength: 1 }),
  content: Nullable(Type.String()),
});

export const ChatMessageParam = Type.Union([SystemMessage, UserMessage, AssistantMessage, ToolMessage, FunctionMessage]);

/** A function's parameters: a JSON-Schema object (its `type` is checked by the vendor rules). */
const FunctionParameters = Type.Object({});

export const FunctionToolParam = Type.Object({
  type: Type.Literal('function'),
  function: Type.Object({
    name: FunctionName,
    description: Type.Optional(Nullable(Type.String())),
    parameters: Type.Optional(Nullable(FunctionParameters)),
    strict: Type.Optional(Nullable(Type.Boolean())),
  }),
});

export const CustomToolParam = Type.Object({
  type: Type.Literal('custom'),
  custom: Type.Object({
    name: FunctionName,
    description: Type.Optional(Nullable(Type.String())),
    format: Type.Optional(Nullable(Type.Object({ type: Type.String() }))),
  }),
});

export const ToolParam = Type.Union([FunctionToolParam, CustomToolParam]);

const NamedTool = Type.Union([
  Type.Object({ type: Type.Literal('function'), function: Type.Object({ name: Type.String({ minLength: 1 }) }) }),
  Type.Object({ type: Type.Literal('custom'), custom: Type.Object({ name: Type.String({ minLength: 1 }) }) }),
]);

export const ToolChoiceParam = Type.Union([
  Enum(['none', 'auto', 'required']),
  NamedTool,
  Type.Object({
    type: Type.Literal('allowed_tools'),
    allowed_tools: Type.Object({ mode: Enum(['auto', 'required']), tools: Type.Array(NamedTool, { minItems: 1 }) }),
  }),
]);

export const LegacyFunction = Type.Object({
  name: FunctionName,
  description: Type.Optional(Nullable(Type.String())),
  parameters: Type.Optional(Nullable(FunctionParameters)),
});

export const ResponseFormatParam = Type.Union([
  Type.Object({ type: Type.Literal('text') }),
  Type.Object({ type: Type.Literal('json_object') }),
  Type.Object({
    type: Type.Literal('json_schema'),
    json_schema: Type.Object({
      name: FunctionName,
      description: Type.Optional(Nullable(Type.String())),
      schema: Type.Optional(Nullable(Type.Object({}))),
      strict: Type.Optional(Nullable(Type.Boolean())),
    }),
  }),
]);

export const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

const Sampling = (minimum: number, maximum: number) => Type.Optional(Nullable(Type.Number({ minimum, maximum })));
const TokenLimit = Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_TOKENS_CEILING })));

export const ChatCompletionsRequest = Type.Object({
  model: Type.String({ minLength: 1, maxLength: MAX_MODEL_NAME_LENGTH }),
  messages: Type.Array(ChatMessageParam),
  tools: Type.Optional(Nullable(Type.Array(ToolParam))),
  tool_choice: Type.Optional(Nullable(ToolChoiceParam)),
  parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
  functions: Type.Optional(Nullable(Type.Array(LegacyFunction))),
  function_call: Type.Optional(Nullable(Type.Union([Enum(['none', 'auto']), Type.Object({ name: Type.String({ minLength: 1 }) })]))),
  max_tokens: TokenLimit,
  max_completion_tokens: TokenLimit,
  temperature: Sampling(0, 2),
  top_p: Sampling(0, 1),
  /** Not OpenAI's, but vLLM's, llama.cpp's and OpenRouter's: translated where the upstream has it. */
  top_k: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  presence_penalty: Sampling(-2, 2),
  frequency_penalty: Sampling(-2, 2),
  seed: Type.Optional(Nullable(Type.Integer())),
  stop: Type.Optional(Nullable(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })]))),
  n: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 128 }))),
  logprobs: Type.Optional(Nullable(Type.Boolean())),
  top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
  logit_bias: Type.Optional(Nullable(Type.Record(Type.String(), Type.Number()))),
  response_format: Type.Optional(Nullable(ResponseFormatParam)),
  reasoning_effort: Type.Optional(Nullable(Enum(EFFORTS))),
  verbosity: Type.Optional(Nullable(Enum(['low', 'medium', 'high']))),
  stream: Type.Optional(Nullable(Type.Boolean())),
  stream_options: Type.Optional(Nullable(Type.Object({ include_usage: Type.Optional(Nullable(Type.Boolean())) }))),
  user: Type.Optional(Nullable(Type.String())),
  safety_identifier: Type.Optional(Nullable(Type.String())),
  prompt_cache_key: Type.Optional(Nullable(Type.String())),
  metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.String({ maxLength: 512 }), { maxProperties: 16 }))),
  store: Type.Optional(Nullable(Type.Boolean())),
  service_tier: Type.Optional(Nullable(Type.String())),
  modalities: Type.Optional(Nullable(Type.Array(Enum(['text', 'audio'])))),
  audio: Type.Optional(Nullable(Type.Object({}))),
  prediction: Type.Optional(Nullable(Type.Object({}))),
  web_search_options: Type.Optional(Nullable(Type.Object({}))),
});

export type ChatCompletionsRequestBody = Static<typeof ChatCompletionsRequest>;
export type ChatMessageParamBody = Static<typeof ChatMessageParam>;
export type UserContentPartBody = Static<typeof UserContentPart>;
export type AssistantMessageBody = Static<typeof AssistantMessage>;
export type ToolParamBody = Static<typeof ToolParam>;
export type ToolChoiceParamBody = Static<typeof ToolChoiceParam>;
export type LegacyFunctionBody = Static<typeof LegacyFunction>;
export type ResponseFormatBody = Static<typeof ResponseFormatParam>;
