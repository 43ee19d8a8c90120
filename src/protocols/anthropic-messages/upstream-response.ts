// What an Anthropic Messages upstream answers (messages.md §9–§13): the Message body, its blocks and
// usage, and the error envelope. Every field optional or loose: the driver reads upstream answers
// leniently and never trusts their shape.

export interface UpstreamUsageWire {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/** One content block as it appears in a Message body or a `content_block_start` frame. Server-tool
 * blocks, result blocks and future types share the shape and are skipped by type. */
export interface UpstreamContentBlockWire {
  type?: string;
  /** text */
  text?: string;
  /** thinking */
  thinking?: string;
  signature?: string;
  /** redacted_thinking */
  data?: string;
  /** tool_use */
  id?: string;
  name?: string;
  input?: unknown;
}

export interface UpstreamMessageWire {
  id?: string;
  type?: string;
  role?: string;
  model?: string;
  content?: UpstreamContentBlockWire[] | null;
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: UpstreamUsageWire | null;
}

export interface UpstreamErrorWire {
  type?: string;
  message?: string;
}

export interface UpstreamErrorBodyWire {
  type?: string;
  error?: UpstreamErrorWire | null;
  request_id?: string;
}
