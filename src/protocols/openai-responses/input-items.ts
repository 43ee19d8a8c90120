// Items of the Responses `input` array (responses.md §4). Message items may omit `type`; item ids and
// statuses are accepted and ignored (clients send earlier output items back as they got them). Built-in tool items (web_search_call, local_shell_call, …)
// validate as `OtherItem` and are dropped with a warning by the decoder; a type the API does not
// know is refused, as the API refuses it.
import { Type, type Static } from '@sinclair/typebox';
import { Enum, Nullable } from './common.js';
import { ContentPart } from './content-parts.js';

const Output = Type.Union([Type.String(), Type.Array(ContentPart)]);

export const MessageItem = Type.Object({
  type: Type.Optional(Type.Literal('message')),
  role: Enum(['user', 'assistant', 'system', 'developer']),
  content: Type.Union([Type.String(), Type.Array(ContentPart)]),
});

export const FunctionCallItem = Type.Object({
  type: Type.Literal('function_call'),
  call_id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  arguments: Type.String(),
  /** The output item id (`fc_…`). */
  id: Type.Optional(Nullable(Type.String())),
  namespace: Type.Optional(Nullable(Type.String())),
});

export const FunctionCallOutputItem = Type.Object({
  type: Type.Literal('function_call_output'),
  call_id: Type.String({ minLength: 1 }),
  output: Output,
});

export const CustomToolCallItem = Type.Object({
  type: Type.Literal('custom_tool_call'),
  call_id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  input: Type.String(),
  id: Type.Optional(Nullable(Type.String())),
  namespace: Type.Optional(Nullable(Type.String())),
});

export const CustomToolCallOutputItem = Type.Object({
  type: Type.Literal('custom_tool_call_output'),
  call_id: Type.String({ minLength: 1 }),
  output: Output,
});

export const SummaryText = Type.Object({ type: Type.Literal('summary_text'), text: Type.String() });

export const ReasoningItem = Type.Object({
  type: Type.Literal('reasoning'),
  id: Type.Optional(Type.String()),
  /** Clients replaying an opaque-only item (encrypted_content, no summary asked) may leave it out. */
  summary: Type.Optional(Nullable(Type.Array(SummaryText))),
  /** Raw reasoning text (`reasoning_text` parts); only used when there is no summary. */
  content: Type.Optional(Nullable(Type.Array(Type.Object({ text: Type.String() })))),
  encrypted_content: Type.Optional(Nullable(Type.String())),
});

export const ItemReference = Type.Object({
  type: Type.Optional(Nullable(Type.Literal('item_reference'))),
  id: Type.String(),
});

export const ITEM_TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'item_reference',
] as const;

/** Built-in tool items of the SDK's ResponseInputItem union (openai 6.49): passed through, dropped in
 * translation. */
export const BUILT_IN_ITEM_TYPES = [
  'file_search_call',
  'web_search_call',
  'computer_call',
  'computer_call_output',
  'image_generation_call',
  'code_interpreter_call',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'tool_search_call',
  'tool_search_output',
  'additional_tools',
  'compaction',
  'compaction_trigger',
  'program',
  'program_output',
] as const;

export const OtherItem = Type.Object({ type: Enum(BUILT_IN_ITEM_TYPES) });

export const InputItem = Type.Union([
  MessageItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  CustomToolCallItem,
  CustomToolCallOutputItem,
  ReasoningItem,
  ItemReference,
  OtherItem,
]);

export type MessageItemBody = Static<typeof MessageItem>;
export type FunctionCallItemBody = Static<typeof FunctionCallItem>;
export type ToolOutputItemBody = Static<typeof FunctionCallOutputItem> | Static<typeof CustomToolCallOutputItem>;
export type CustomToolCallItemBody = Static<typeof CustomToolCallItem>;
export type ReasoningItemBody = Static<typeof ReasoningItem>;
export type ItemReferenceBody = Static<typeof ItemReference>;
export type InputItemBody = Static<typeof InputItem>;
