// Request content blocks (`messages[].content[]`, `tool_result.content[]`) as the SDK 1.12 types
// define them. Only the blocks the gateway translates are spelled out; the other block types the API
// takes (server tool blocks, search_result, container_upload, mcp_*, …) pass as `OtherBlock`, and a
// type the API does not know is refused, as the API refuses it.
import { Type, type Static } from '@sinclair/typebox';
import { CacheControl, Enum, Nullable } from './common.js';

/** The image media types the Messages API takes (anything else is a 400 there). */
export const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

export const Base64Source = Type.Object({ type: Type.Literal('base64'), media_type: Type.String(), data: Type.String() });
export const Base64ImageSource = Type.Object({ type: Type.Literal('base64'), media_type: Enum(IMAGE_MEDIA_TYPES), data: Type.String() });
export const Base64PdfSource = Type.Object({ type: Type.Literal('base64'), media_type: Type.Literal('application/pdf'), data: Type.String() });
export const UrlSource = Type.Object({ type: Type.Literal('url'), url: Type.String() });
export const FileSource = Type.Object({ type: Type.Literal('file'), file_id: Type.String() });
export const PlainTextSource = Type.Object({ type: Type.Literal('text'), media_type: Type.Literal('text/plain'), data: Type.String() });

export const TextBlock = Type.Object({
  type: Type.Literal('text'),
  text: Type.String(),
  cache_control: Type.Optional(CacheControl),
  citations: Type.Optional(Nullable(Type.Array(Type.Object({ type: Type.String() })))),
});

export const ImageBlock = Type.Object({
  type: Type.Literal('image'),
  source: Type.Union([Base64ImageSource, UrlSource, FileSource]),
  cache_control: Type.Optional(CacheControl),
});

/** `document.source` of type `content`: the caller's own chunks (text and images). */
export const ContentSource = Type.Object({
  type: Type.Literal('content'),
  content: Type.Union([Type.String(), Type.Array(Type.Union([TextBlock, ImageBlock]))]),
});

export const DocumentBlock = Type.Object({
  type: Type.Literal('document'),
  source: Type.Union([Base64PdfSource, PlainTextSource, ContentSource, UrlSource, FileSource]),
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

/** Other blocks a tool_result may hold (SDK 1.12, beta included); passed through, dropped in translation. */
export const OTHER_TOOL_RESULT_BLOCK_TYPES = ['search_result', 'tool_reference', 'browser_state'] as const;
export const ToolResultContentBlock = Type.Union([
  TextBlock,
  ImageBlock,
  DocumentBlock,
  Type.Object({ type: Enum(OTHER_TOOL_RESULT_BLOCK_TYPES) }),
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

/** The block types the API takes that the gateway does not translate (SDK 1.12 ContentBlockParam and
 * BetaContentBlockParam); they pass through and are dropped with a warning in translation. */
export const OTHER_BLOCK_TYPES = [
  'search_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'advisor_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'compaction',
  'tool_addition',
  'tool_removal',
  'mcp_tool_listing',
  'fallback',
] as const;

export const OtherBlock = Type.Object({ type: Enum(OTHER_BLOCK_TYPES) });

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
