// The `POST /v1/messages` and `POST /v1/messages/count_tokens` request bodies (messages.md §3–§8,
// §15). Checks the fields the gateway translates; every other top-level key is allowed and carried
// verbatim in `extras.messages`.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CacheControl, Nullable, OtherTag } from './common.js';
import { ContentBlockParam, TextBlock } from './content-blocks.js';

export const MessageParam = Type.Object({
  /** `system` entries are SDK 1.x mid-conversation system blocks (Claude Code sends them). */
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
  content: Type.Union([Type.String(), Type.Array(ContentBlockParam)]),
});

export const CustomTool = Type.Object({
  type: Type.Optional(Nullable(Type.Literal('custom'))),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  input_schema: Type.Object({}),
  strict: Type.Optional(Type.Boolean()),
  cache_control: Type.Optional(CacheControl),
});

/** Anthropic-defined tools (`bash_20250124`, `web_search_20250305`, toolsets, …). */
export const DefinedTool = Type.Object({ type: OtherTag(['custom']), name: Type.Optional(Type.String()) });

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
  Type.Object({ type: Type.Literal('enabled'), budget_tokens: Type.Integer({ minimum: 0 }), display: ThinkingDisplay }),
  Type.Object({ type: Type.Literal('adaptive'), display: ThinkingDisplay }),
  Type.Object({ type: Type.Literal('disabled') }),
  // between_tools and whatever comes next: decoded with a warning.
  Type.Object({ type: OtherTag(['enabled', 'adaptive', 'disabled']) }),
]);

export const OutputFormatParam = Type.Union([
  Type.Object({ type: Type.Literal('json_schema'), schema: Type.Object({}) }),
  Type.Object({ type: OtherTag(['json_schema']) }),
]);

export const OutputConfigParam = Type.Object({
  effort: Type.Optional(Nullable(Type.String())),
  format: Type.Optional(Nullable(OutputFormatParam)),
});

export const MetadataParam = Type.Object({ user_id: Type.Optional(Nullable(Type.String())) });

export const SystemParam = Type.Union([Type.String(), Type.Array(TextBlock)]);

function requestShape<M extends TSchema>(maxTokens: M) {
  return Type.Object({
    model: Type.String(),
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

const MaxTokens = Type.Integer({ minimum: 0 });

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
