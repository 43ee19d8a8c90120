// The `POST /v1/messages` and `POST /v1/messages/count_tokens` request bodies (messages.md §3–§8,
// §15). Checks the fields the gateway translates; every other top-level key is allowed and carried
// verbatim in `extras.messages`.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CacheControl, Enum, Nullable } from './common.js';
import { ContentBlockParam, TextBlock } from './content-blocks.js';

export const MessageParam = Type.Object({
  /** `system` entries are SDK 1.x mid-conversation system blocks (Claude Code sends them). */
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
  content: Type.Union([Type.String(), Type.Array(ContentBlockParam)]),
});

/** The type names JSON Schema defines (a property `type` is one of them, or a list of them). */
export const JSON_SCHEMA_TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const;
const SchemaType = Enum(JSON_SCHEMA_TYPES);

/** A tool's input schema: a JSON-Schema object whose properties are schemas with a known `type`. Deeper
 * levels are the vendor's business (and the upstream's), not a second walk here. */
export const ToolInputSchema = Type.Object({
  type: Type.Literal('object'),
  properties: Type.Optional(
    Nullable(Type.Record(Type.String(), Type.Object({ type: Type.Optional(Type.Union([SchemaType, Type.Array(SchemaType)])) }))),
  ),
  required: Type.Optional(Nullable(Type.Array(Type.String()))),
});

export const TOOL_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,128}$';

export const CustomTool = Type.Object({
  type: Type.Optional(Nullable(Type.Literal('custom'))),
  name: Type.String({ pattern: TOOL_NAME_PATTERN }),
  description: Type.Optional(Type.String()),
  input_schema: ToolInputSchema,
  strict: Type.Optional(Type.Boolean()),
  cache_control: Type.Optional(CacheControl),
});

/** Anthropic-defined tool types (SDK 1.12 ToolUnion and BetaToolUnion): forwarded to Anthropic, dropped
 * with a warning in translation. A type outside this list is refused, as the API refuses it. */
export const DEFINED_TOOL_TYPES = [
  'bash_20241022',
  'bash_20250124',
  'code_execution_20250522',
  'code_execution_20250825',
  'code_execution_20260120',
  'code_execution_20260521',
  'browser_toolset_20260801',
  'computer_20241022',
  'computer_20250124',
  'computer_20251124',
  'computer_toolset_20260801',
  'memory_20250818',
  'text_editor_20241022',
  'text_editor_20250124',
  'text_editor_20250429',
  'text_editor_20250728',
  'web_search_20250305',
  'web_search_20260209',
  'web_search_20260318',
  'web_fetch_20250910',
  'web_fetch_20260209',
  'web_fetch_20260309',
  'web_fetch_20260318',
  'advisor_20260301',
  'tool_search_tool_bm25_20251119',
  'tool_search_tool_bm25',
  'tool_search_tool_regex_20251119',
  'tool_search_tool_regex',
  'mcp_toolset',
] as const;

export const DefinedTool = Type.Object({ type: Enum(DEFINED_TOOL_TYPES), name: Type.Optional(Type.String()) });

export const ToolParam = Type.Union([CustomTool, DefinedTool]);

const DisableParallel = Type.Optional(Type.Boolean());
export const ToolChoiceParam = Type.Union([
  Type.Object({ type: Type.Literal('auto'), disable_parallel_tool_use: DisableParallel }),
  Type.Object({ type: Type.Literal('any'), disable_parallel_tool_use: DisableParallel }),
  Type.Object({ type: Type.Literal('tool'), name: Type.String(), disable_parallel_tool_use: DisableParallel }),
  Type.Object({ type: Type.Literal('none') }),
]);

const ThinkingDisplay = Type.Optional(Nullable(Type.Union([Type.Literal('summarized'), Type.Literal('omitted')])));
export const ThinkingParam = Type.Union([
  Type.Object({ type: Type.Literal('enabled'), budget_tokens: Type.Integer({ minimum: 1024 }), display: ThinkingDisplay }),
  Type.Object({ type: Type.Literal('adaptive'), display: ThinkingDisplay }),
  Type.Object({ type: Type.Literal('disabled') }),
  // Newest API (non-core): decoded as adaptive with a warning.
  Type.Object({ type: Type.Literal('between_tools') }),
]);

export const OutputFormatParam = Type.Object({ type: Type.Literal('json_schema'), schema: Type.Object({}) });

export const OutputConfigParam = Type.Object({
  effort: Type.Optional(Nullable(Enum(['low', 'medium', 'high', 'xhigh', 'max']))),
  format: Type.Optional(Nullable(OutputFormatParam)),
});

/** `user_id` is the only key the API takes (others: "Extra inputs are not permitted"). */
export const MetadataParam = Type.Object({ user_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))) }, { additionalProperties: false });

export const SystemParam = Type.Union([Type.String(), Type.Array(TextBlock)]);

/** Longer names are no model anyone serves; unbounded, they grow logs, headers and health tables. */
export const MAX_MODEL_NAME_LENGTH = 256;

function requestShape<M extends TSchema>(maxTokens: M) {
  return Type.Object({
    model: Type.String({ maxLength: MAX_MODEL_NAME_LENGTH }),
    max_tokens: maxTokens,
    messages: Type.Array(MessageParam),
    system: Type.Optional(SystemParam),
    metadata: Type.Optional(MetadataParam),
    stop_sequences: Type.Optional(Type.Array(Type.String())),
    stream: Type.Optional(Type.Boolean()),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_k: Type.Optional(Type.Integer({ minimum: 0 })),
    tools: Type.Optional(Type.Array(ToolParam)),
    tool_choice: Type.Optional(ToolChoiceParam),
    thinking: Type.Optional(ThinkingParam),
    output_config: Type.Optional(OutputConfigParam),
  });
}

/** No model writes a million tokens in one answer: beyond that the number is garbage (1e300 parses as an
 * integer), refused here rather than handed to an upstream that might accept it. 0 = cache prewarm. */
export const MAX_TOKENS_CEILING = 1_000_000;
const MaxTokens = Type.Integer({ minimum: 0, maximum: MAX_TOKENS_CEILING });

export const MessagesRequest = requestShape(MaxTokens);
/** count_tokens: the create body without the required `max_tokens`. */
export const CountTokensRequest = requestShape(Type.Optional(MaxTokens));

export type MessagesRequestBody = Static<typeof MessagesRequest>;
export type CountTokensRequestBody = Static<typeof CountTokensRequest>;
export type MessageParamBody = Static<typeof MessageParam>;
export type CustomToolParam = Static<typeof CustomTool>;
export type ToolChoiceBody = Static<typeof ToolChoiceParam>;
export type ThinkingBody = Static<typeof ThinkingParam>;
export type OutputConfigBody = Static<typeof OutputConfigParam>;
