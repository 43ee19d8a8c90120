// Tool definitions and `tool_choice` of the Responses create body (responses.md §6, §7). Function and
// custom tools translate; `namespace` groups (Codex) are flattened by the decoder; built-in tools
// (web_search, file_search, mcp, shell, …) validate and are dropped with a warning; a tool type the
// API does not know is refused.
import { Type, type Static } from '@sinclair/typebox';
import { Enum, Nullable, OtherTag } from './common.js';

/** Function and custom tool names as the API takes them (1–64 of these characters). */
const ToolName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' });

const SchemaType = Enum(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

/** A function's parameters: a JSON-Schema object whose properties have a type JSON Schema defines.
 * (`type` itself is checked by the vendor rules, which word it as the API does.) */
export const FunctionParameters = Type.Object({
  properties: Type.Optional(
    Nullable(Type.Record(Type.String(), Type.Object({ type: Type.Optional(Type.Union([SchemaType, Type.Array(SchemaType)])) }))),
  ),
  required: Type.Optional(Nullable(Type.Array(Type.String()))),
});

export const FunctionTool = Type.Object({
  type: Type.Literal('function'),
  name: ToolName,
  description: Type.Optional(Nullable(Type.String())),
  parameters: Type.Optional(Nullable(FunctionParameters)),
  strict: Type.Optional(Nullable(Type.Boolean())),
});

export const CustomTool = Type.Object({
  type: Type.Literal('custom'),
  name: ToolName,
  description: Type.Optional(Nullable(Type.String())),
  /** `{type:"text"}` | `{type:"grammar", syntax, definition}`, kept verbatim. */
  format: Type.Optional(Nullable(Type.Object({ type: Type.String() }))),
});

export const NamespaceTool = Type.Object({
  type: Type.Literal('namespace'),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Nullable(Type.String())),
  tools: Type.Array(Type.Union([FunctionTool, CustomTool, Type.Object({ type: OtherTag(['function', 'custom']) })])),
});

export const TOOL_TYPES = ['function', 'custom', 'namespace'] as const;

/** Built-in tools of the SDK's Tool union (openai 6.49). */
export const BUILT_IN_TOOL_TYPES = [
  'file_search',
  'computer',
  'computer_use_preview',
  'web_search',
  'web_search_2025_08_26',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'mcp',
  'code_interpreter',
  'programmatic_tool_calling',
  'image_generation',
  'local_shell',
  'shell',
  'tool_search',
  'apply_patch',
] as const;

export const BuiltInTool = Type.Object({ type: Enum(BUILT_IN_TOOL_TYPES) });

export const Tool = Type.Union([FunctionTool, CustomTool, NamespaceTool, BuiltInTool]);

export const NamedToolChoice = Type.Object({
  type: Enum(['function', 'custom']),
  name: Type.String({ minLength: 1 }),
});

export const AllowedToolsChoice = Type.Object({
  type: Type.Literal('allowed_tools'),
  mode: Enum(['auto', 'required']),
  tools: Type.Array(Type.Object({ type: Type.String(), name: Type.Optional(Type.String()) })),
});

export const ToolChoice = Type.Union([
  Enum(['auto', 'none', 'required']),
  NamedToolChoice,
  AllowedToolsChoice,
  // Built-in choices ({type:"web_search_preview"}, {type:"mcp", server_label}, …).
  Type.Object({ type: OtherTag(['function', 'custom', 'allowed_tools']) }),
]);

export type FunctionToolBody = Static<typeof FunctionTool>;
export type CustomToolBody = Static<typeof CustomTool>;
export type NamespaceToolBody = Static<typeof NamespaceTool>;
export type ToolBody = Static<typeof Tool>;
export type NamedToolChoiceBody = Static<typeof NamedToolChoice>;
export type AllowedToolsChoiceBody = Static<typeof AllowedToolsChoice>;
export type ToolChoiceBody = Static<typeof ToolChoice>;
