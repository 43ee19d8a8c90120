// The `POST /v1/responses` create body (responses.md §3), also used by `/v1/responses/input_tokens`.
// Checks the fields the gateway translates or echoes; every other top-level key is allowed and kept
// verbatim in `extras.responses`.
import { Type, type Static } from '@sinclair/typebox';
import { Enum, Nullable } from './common.js';
import { InputItem } from './input-items.js';
import { Tool, ToolChoice } from './tools.js';

const SummaryMode = Nullable(Enum(['auto', 'concise', 'detailed']));

export const ReasoningParam = Type.Object({
  effort: Type.Optional(Nullable(Enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']))),
  summary: Type.Optional(SummaryMode),
  /** Deprecated spelling of `summary`. */
  generate_summary: Type.Optional(SummaryMode),
});

export const TextFormatParam = Type.Union([
  Type.Object({ type: Type.Literal('text') }),
  Type.Object({ type: Type.Literal('json_object') }),
  Type.Object({
    type: Type.Literal('json_schema'),
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' }),
    schema: Type.Object({}),
    description: Type.Optional(Nullable(Type.String())),
    strict: Type.Optional(Nullable(Type.Boolean())),
  }),
]);

export const TextParam = Type.Object({
  format: Type.Optional(Nullable(TextFormatParam)),
  verbosity: Type.Optional(Nullable(Enum(['low', 'medium', 'high']))),
});

/** The `include` values the API knows (SDK ResponseIncludable). */
export const INCLUDABLE = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
] as const;

/** The API's minimum; and no model writes a million tokens in one answer (1e300 parses as an integer). */
export const MAX_OUTPUT_TOKENS_MIN = 16;
export const MAX_OUTPUT_TOKENS_CEILING = 1_000_000;

/** Longer names are no model anyone serves; unbounded, they grow logs, headers and health tables. */
export const MAX_MODEL_NAME_LENGTH = 256;

export const ResponsesRequest = Type.Object({
  model: Type.String({ minLength: 1, maxLength: MAX_MODEL_NAME_LENGTH }),
  /** Required unless the conversation comes from `previous_response_id` / `conversation` / `prompt`. */
  input: Type.Optional(Type.Union([Type.String(), Type.Array(InputItem)])),
  instructions: Type.Optional(Nullable(Type.String())),
  tools: Type.Optional(Nullable(Type.Array(Tool))),
  tool_choice: Type.Optional(Nullable(ToolChoice)),
  parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
  max_output_tokens: Type.Optional(Nullable(Type.Integer({ minimum: MAX_OUTPUT_TOKENS_MIN, maximum: MAX_OUTPUT_TOKENS_CEILING }))),
  max_tool_calls: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
  top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
  reasoning: Type.Optional(Nullable(ReasoningParam)),
  text: Type.Optional(Nullable(TextParam)),
  metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.String({ maxLength: 512 }), { maxProperties: 16 }))),
  safety_identifier: Type.Optional(Nullable(Type.String())),
  user: Type.Optional(Nullable(Type.String())),
  stream: Type.Optional(Nullable(Type.Boolean())),
  store: Type.Optional(Nullable(Type.Boolean())),
  background: Type.Optional(Nullable(Type.Boolean())),
  include: Type.Optional(Nullable(Type.Array(Enum(INCLUDABLE)))),
  previous_response_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  prompt_cache_key: Type.Optional(Nullable(Type.String())),
  service_tier: Type.Optional(Nullable(Type.String())),
  truncation: Type.Optional(Nullable(Enum(['auto', 'disabled']))),
  stream_options: Type.Optional(Nullable(Type.Object({}))),
});

export type ResponsesRequestBody = Static<typeof ResponsesRequest>;
export type ReasoningParamBody = Static<typeof ReasoningParam>;
export type TextParamBody = Static<typeof TextParam>;
export type TextFormatBody = Static<typeof TextFormatParam>;
