// What the gateway sends to an Anthropic Messages upstream (@anthropic-ai/sdk 1.12 `MessageCreateParams`,
// the subset the driver emits). Plain types, not TypeBox: the gateway builds this body, it never
// receives it, so there is nothing to validate at run time.

/** `{type:"ephemeral", ttl?}`, carried verbatim from a Messages caller. */
export type UpstreamCacheControl = unknown;

export interface UpstreamTextBlock {
  type: 'text';
  text: string;
  cache_control?: UpstreamCacheControl;
}

export type UpstreamImageSource =
  | { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

export interface UpstreamImageBlock {
  type: 'image';
  source: UpstreamImageSource;
  cache_control?: UpstreamCacheControl;
}

export type UpstreamDocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

export interface UpstreamDocumentBlock {
  type: 'document';
  source: UpstreamDocumentSource;
  title?: string;
  cache_control?: UpstreamCacheControl;
}

export interface UpstreamToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: UpstreamCacheControl;
}

export type UpstreamToolResultContent = UpstreamTextBlock | UpstreamImageBlock | UpstreamDocumentBlock;

export interface UpstreamToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | UpstreamToolResultContent[];
  is_error?: true;
  cache_control?: UpstreamCacheControl;
}

export interface UpstreamThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface UpstreamRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type UpstreamUserBlock = UpstreamTextBlock | UpstreamImageBlock | UpstreamDocumentBlock | UpstreamToolResultBlock;
export type UpstreamAssistantBlock = UpstreamTextBlock | UpstreamToolUseBlock | UpstreamThinkingBlock | UpstreamRedactedThinkingBlock;

export type UpstreamMessage =
  | { role: 'user'; content: UpstreamUserBlock[] }
  | { role: 'assistant'; content: UpstreamAssistantBlock[] };

export interface UpstreamTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  strict?: boolean;
  cache_control?: UpstreamCacheControl;
}

export type UpstreamToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export type UpstreamThinking =
  | { type: 'enabled'; budget_tokens: number; display?: 'summarized' | 'omitted' }
  | { type: 'adaptive'; display?: 'summarized' | 'omitted' }
  | { type: 'disabled' };

export type UpstreamEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface UpstreamOutputConfig {
  effort?: UpstreamEffort;
  format?: { type: 'json_schema'; schema: Record<string, unknown> };
}

export interface UpstreamMessagesRequest {
  model: string;
  max_tokens: number;
  system?: UpstreamTextBlock[];
  messages: UpstreamMessage[];
  tools?: UpstreamTool[];
  tool_choice?: UpstreamToolChoice;
  thinking?: UpstreamThinking;
  output_config?: UpstreamOutputConfig;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  metadata?: { user_id: string };
  /** Top-level automatic cache breakpoint. */
  cache_control?: { type: 'ephemeral' };
  stream?: true;
  /** Same-family extras (context_management, container, service_tier, …), verbatim. */
  [extra: string]: unknown;
}
