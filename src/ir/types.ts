// The canonical conversation IR. Every inbound codec decodes into these shapes, every driver encodes
// from them, and every stream is a sequence of IrEvent. Imports nothing of ours.

/** Wire protocols the gateway speaks. `messages` = Anthropic Messages, `responses` = OpenAI Responses,
 * `chat` = OpenAI Chat Completions, `gemini` = Google Gemini generateContent. */
export type Protocol = 'messages' | 'responses' | 'chat' | 'gemini';

/** Vendor families that own opaque reasoning state. A carry only goes back to the family that made it. */
export type ReasoningFamily = 'anthropic' | 'openai' | 'chat' | 'google';

// ---------------------------------------------------------------------------------------------
// Parts

export type MediaSource =
  | { kind: 'base64'; mediaType: string; data: string }
  | { kind: 'url'; url: string }
  /** Provider-scoped file id: never crosses providers. */
  | { kind: 'file-id'; fileId: string };

export interface TextPart {
  type: 'text';
  text: string;
  /** Anthropic `cache_control`, kept verbatim for a Messages upstream; stripped elsewhere. */
  cacheControl?: unknown;
  /** The text is a refusal (Responses `refusal` part / Chat `message.refusal`). */
  refusal?: boolean;
}

export interface ImagePart {
  type: 'image';
  source: MediaSource;
  /** Responses/Chat `detail` (low|high|auto|original); no Anthropic equivalent. */
  detail?: string;
  cacheControl?: unknown;
}

/** A document: PDF (base64/url/file-id) or plain text (`source.kind === 'text'`). */
export interface FilePart {
  type: 'file';
  source: MediaSource | { kind: 'text'; mediaType: string; data: string };
  filename?: string;
  title?: string;
  cacheControl?: unknown;
}

export type ToolKind = 'function' | 'custom';

export interface ToolCallPart {
  type: 'tool-call';
  /** The call id as the caller knows it (Anthropic tool_use.id / Responses call_id). */
  id: string;
  name: string;
  /** Raw JSON text of the arguments (OpenAI's representation). For custom tools: the free-text input. */
  arguments: string;
  kind: ToolKind;
  /** Responses `function_call.id` (`fc_…`) when the caller sent one. */
  itemId?: string;
  /** Responses `namespace` of a tool inside a `namespace` tool group (Codex). */
  namespace?: string;
  cacheControl?: unknown;
}

export type ToolResultContent = TextPart | ImagePart | FilePart;

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  content: ToolResultContent[];
  isError: boolean;
  kind: ToolKind;
  cacheControl?: unknown;
}

/** Opaque reasoning state, byte-exact, tagged with the family that produced it. */
export type ReasoningCarry =
  | {
      family: 'anthropic';
      block:
        | { type: 'thinking'; thinking: string; signature: string }
        | { type: 'redacted_thinking'; data: string };
    }
  | {
      family: 'openai';
      /** The upstream reasoning item id (`rs_…`). */
      id: string;
      encryptedContent: string | null;
      summary: { type: 'summary_text'; text: string }[];
    }
  | { family: 'chat'; text: string }
  | {
      family: 'google';
      /** Gemini `thoughtSignature`, byte-exact; null for a thought summary the upstream did not sign. */
      signature: string | null;
      /** Where the signature goes back (gemini.md §6): on this block's own thought part, or on the
       * answer part that followed it (a function call or text; an empty text part when none follows). */
      on: 'thought' | 'next';
    };

export interface ReasoningPart {
  type: 'reasoning';
  /** Human-readable reasoning (thinking text / summary text joined by "\n\n"); may be empty. */
  text: string;
  carry?: ReasoningCarry;
}

export type UserPart = TextPart | ImagePart | FilePart | ToolResultPart;
export type AssistantPart = TextPart | ToolCallPart | ReasoningPart;
export type Part = UserPart | AssistantPart;

export type Turn =
  | { role: 'user'; parts: UserPart[] }
  | { role: 'assistant'; parts: AssistantPart[] };

// ---------------------------------------------------------------------------------------------
// Request

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema object, passed through unchanged. For custom tools: undefined. */
  inputSchema?: Record<string, unknown>;
  kind: ToolKind;
  strict?: boolean;
  /** Custom tools: `format` ({type:"text"} | {type:"grammar",…}), verbatim. */
  format?: unknown;
  /** Responses `namespace` tool group this function belongs to. Upstreams without namespaces see the
   * flattened name `<namespace>__<name>` (ir/tool-names.ts); decoders map it back. */
  namespace?: string;
  cacheControl?: unknown;
}

export type ToolChoice =
  | { type: 'auto' }
  | { type: 'required' }
  | { type: 'none' }
  | { type: 'tool'; name: string }
  /** Responses `allowed_tools`: restrict to a subset; mode auto|required. */
  | { type: 'allowed'; mode: 'auto' | 'required'; names: string[] };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ReasoningRequest {
  /** Anthropic: `enabled` (with budget) | `adaptive` | `disabled`. Responses/Chat only set effort. */
  mode?: 'enabled' | 'adaptive' | 'disabled';
  effort?: ReasoningEffort;
  budgetTokens?: number;
  /** Responses `reasoning.summary`: auto|concise|detailed; null = not asked. */
  summary?: 'auto' | 'concise' | 'detailed' | null;
  /** Anthropic `thinking.display`. */
  display?: 'summarized' | 'omitted';
}

export type OutputFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string; description?: string; schema: Record<string, unknown>; strict?: boolean };

export interface IrRequest {
  /** The model name the caller asked for; echoed back to the caller. */
  model: string;
  system: TextPart[];
  turns: Turn[];
  tools: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  /** Sampling seed and repetition penalties (Chat `seed`/`presence_penalty`/`frequency_penalty`,
   * Gemini `generationConfig.seed`/`presencePenalty`/`frequencyPenalty`); dropped with a warning
   * toward an upstream that has none. */
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stopSequences: string[];
  reasoning?: ReasoningRequest;
  outputFormat?: OutputFormat;
  /** End-user id: Anthropic `metadata.user_id`, OpenAI `safety_identifier`/`user`. */
  user?: string;
  /** Responses `metadata` map (echoed to Responses callers). */
  metadata?: Record<string, string>;
  stream: boolean;
  /** Chat `stream_options.include_usage`: the caller's stream ends with a usage chunk. */
  streamUsage?: boolean;
  /** A field the caller set that only its own protocol's upstream can honour (Chat `n > 1`, `logprobs`,
   * `audio`, …): a translation refuses the request with a 400 naming it; a pass-through forwards it. */
  passthroughOnly?: { param: string; message: string };
  /** Which front door decoded this request. */
  sourceProtocol: Protocol;
  /** Per-protocol fields only one side understands, verbatim (e.g. responses: store, include,
   * prompt_cache_key, service_tier; messages: context_management, container…). Drivers of the same
   * protocol may forward them; others report them as warnings. */
  extras: { [P in Protocol]?: Record<string, unknown> };
}

// ---------------------------------------------------------------------------------------------
// Results and events

export interface Usage {
  /** Total prompt tokens, cached ones included (OpenAI convention). */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Total output tokens, reasoning included. */
  outputTokens: number;
  reasoningTokens: number;
}

export type FinishReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'context_overflow'
  | 'other';

export interface Finish {
  reason: FinishReason;
  /** The upstream's own value (stop_reason / finish_reason / status+incomplete reason). */
  raw: string | null;
  stopSequence?: string | null;
}

/** One translation warning: something dropped or downgraded, with why. `field` is a bounded name. */
export interface Warning {
  field: string;
  message: string;
}

/** Error carried as a value inside a stream (never thrown out of an event loop). */
export interface StreamErrorInfo {
  /** A GatewayErrorKind from errors.ts, kept as a string here so ir/ imports nothing. */
  kind: string;
  message: string;
  status?: number;
}

/**
 * IR stream events. Blocks are strictly sequential: a block's `-start`, deltas and `-end` come before
 * the next block's `-start`. `block` is 0,1,2… in emission order across all block kinds.
 * Order: response-start, blocks…, usage?, finish | error.
 */
export type IrEvent =
  | { type: 'response-start'; id: string; model: string; usage?: Usage }
  | { type: 'text-start'; block: number; refusal?: boolean }
  | { type: 'text-delta'; block: number; text: string }
  | { type: 'text-end'; block: number }
  | { type: 'reasoning-start'; block: number }
  | { type: 'reasoning-delta'; block: number; text: string }
  /** A break between summary parts (Responses summary_index change); encoders may insert "\n\n". */
  | { type: 'reasoning-part-break'; block: number }
  | { type: 'reasoning-end'; block: number; carry?: ReasoningCarry }
  | { type: 'tool-call-start'; block: number; id: string; name: string; kind: ToolKind; namespace?: string }
  | { type: 'tool-call-delta'; block: number; argumentsDelta: string }
  /** `arguments` is the full argument text when the upstream gave it (else the concatenated deltas). */
  | { type: 'tool-call-end'; block: number; arguments?: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; finish: Finish }
  | { type: 'error'; error: StreamErrorInfo };

export type OutputPart = TextPart | ToolCallPart | ReasoningPart;

/** A complete (non-streamed) result: the fold of the events. */
export interface IrResult {
  id: string;
  /** The upstream model that answered (callers get their own requested name back). */
  model: string;
  content: OutputPart[];
  finish: Finish;
  usage: Usage;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 };
}
