// Tool definitions and `tool_choice` of the Responses create body (responses.md §6, §7). Function and
// custom tools translate; `namespace` groups (Codex) are flattened by the decoder; built-in tools
// (web_search, file_search, mcp, shell, …) validate and are dropped with a warning.
import { Type, type Static } from '@sinclair/typebox';
import { Enum, Nullable, OtherTag } from './common.js';

export const FunctionTool = Type.Object({
  type: Type.Literal('function'),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Nullable(Type.String())),
  parameters: Type.Optional(Nullable(Type.Object({}))),
  strict: Type.Optional(Nullable(Type.Boolean())),
});

export const CustomTool = Type.Object({
  type: Type.Literal('custom'),
  name: Type.String({ minLength: 1 }),
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

export const BuiltInTool = Type.Object({ type: OtherTag(TOOL_TYPES) });

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
