// Request content blocks (`messages[].content[]`, `tool_result.content[]`) as the SDK 1.12 types
// define them. Only the blocks the gateway translates are spelled out; every other block type
// (server tool blocks, search_result, container_upload, mcp_*, …) passes validation as `OtherBlock`.
import { Type, type Static } from '@sinclair/typebox';
import { CacheControl, Nullable, OtherTag } from './common.js';

export const Base64Source = Type.Object({ type: Type.Literal('base64'), media_type: Type.String(), data: Type.String() });
export const UrlSource = Type.Object({ type: Type.Literal('url'), url: Type.String() });
export const FileSource = Type.Object({ type: Type.Literal('file'), file_id: Type.String() });
export const PlainTextSource = Type.Object({ type: Type.Literal('text'), media_type: Type.String(), data: Type.String() });

export const TextBlock = Type.Object({
  type: Type.Literal('text'),
  text: Type.String(),
  cache_control: Type.Optional(CacheControl),
  citations: Type.Optional(Nullable(Type.Array(Type.Object({ type: Type.String() })))),
});

export const ImageBlock = Type.Object({
  type: Type.Literal('image'),
  source: Type.Union([Base64Source, UrlSource, FileSource]),
  cache_control: Type.Optional(CacheControl),
});

/** `document.source` of type `content`: the caller's own chunks (text and images). */
export const ContentSource = Type.Object({
  type: Type.Literal('content'),
  content: Type.Union([Type.String(), Type.Array(Type.Union([TextBlock, ImageBlock]))]),
});

export const DocumentBlock = Type.Object({
  type: Type.Literal('document'),
  source: Type.Union([Base64Source, PlainTextSource, ContentSource, UrlSource, FileSource]),
  title: Type.Optional(Nullable(Type.String())),
  context: Type.Optional(Nullable(Type.String())),
  citations: Type.Optional(Nullable(Type.Object({ enabled: Type.Optional(Type.Boolean()) }))),
  cache_control: Type.Optional(CacheControl),
});

export const ToolUseBlock = Type.Object({
  type: Type.Literal('tool_use'),
  id: Type.String(),
  name: Type.String(),
  /** A JSON object (the API rejects anything else). */
  input: Type.Object({}),
  cache_control: Type.Optional(CacheControl),
});

const TOOL_RESULT_KNOWN = ['text', 'image', 'document'];
export const ToolResultContentBlock = Type.Union([
  TextBlock,
  ImageBlock,
  DocumentBlock,
  Type.Object({ type: OtherTag(TOOL_RESULT_KNOWN) }),
]);

export const ToolResultBlock = Type.Object({
  type: Type.Literal('tool_result'),
  tool_use_id: Type.String(),
  content: Type.Optional(Type.Union([Type.String(), Type.Array(ToolResultContentBlock)])),
  is_error: Type.Optional(Type.Boolean()),
  cache_control: Type.Optional(CacheControl),
});

export const ThinkingBlock = Type.Object({
  type: Type.Literal('thinking'),
  thinking: Type.String(),
  signature: Type.String(),
});

export const RedactedThinkingBlock = Type.Object({
  type: Type.Literal('redacted_thinking'),
  data: Type.String(),
});

export const KNOWN_BLOCK_TYPES = ['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'] as const;

/** Any block type we do not translate. */
export const OtherBlock = Type.Object({ type: OtherTag(KNOWN_BLOCK_TYPES) });

export const ContentBlockParam = Type.Union([
  TextBlock,
  ImageBlock,
  DocumentBlock,
  ToolUseBlock,
  ToolResultBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  OtherBlock,
]);

export type TextBlockParam = Static<typeof TextBlock>;
export type ImageBlockParam = Static<typeof ImageBlock>;
export type DocumentBlockParam = Static<typeof DocumentBlock>;
export type ToolUseBlockParam = Static<typeof ToolUseBlock>;
export type ToolResultBlockParam = Static<typeof ToolResultBlock>;
export type ThinkingBlockParam = Static<typeof ThinkingBlock>;
export type RedactedThinkingBlockParam = Static<typeof RedactedThinkingBlock>;
/** The blocks the gateway translates (a union TypeScript can narrow on `type`). */
export type KnownBlockParam =
  | TextBlockParam
  | ImageBlockParam
  | DocumentBlockParam
  | ToolUseBlockParam
  | ToolResultBlockParam
  | ThinkingBlockParam
  | RedactedThinkingBlockParam;
export type ToolResultContentParam = TextBlockParam | ImageBlockParam | DocumentBlockParam;
