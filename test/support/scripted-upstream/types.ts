// Public types of the scripted upstream: what a test scripts (Reply) and what the server saw (ReceivedRequest).
import type { IncomingHttpHeaders } from 'node:http';

export type Protocol = 'messages' | 'responses' | 'chat' | 'gemini';

export type ReplyBlock =
  | { type: 'text'; text: string }
  /** Anthropic: thinking (signature = opaque) or redacted_thinking when text is ''; Responses: reasoning item
   *  (summary + encrypted_content = opaque); Chat: reasoning_content. */
  | { type: 'reasoning'; text: string; opaque?: string }
  /** `arguments` is JSON text (custom tools: free text). */
  | { type: 'tool-call'; id?: string; name: string; arguments: string; custom?: boolean };

export type StopKind = 'end' | 'max_tokens' | 'stop_sequence' | 'refusal';

/** Token counts in Anthropic terms: `input` is the uncached part; OpenAI totals add cacheRead + cacheWrite. */
export interface UsageScript {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

export type OkReply = {
  kind: 'reply';
  blocks: ReplyBlock[];
  stop?: StopKind;
  stopSequence?: string;
  usage?: UsageScript;
  /** Gemini only: a finishReason other than the one `stop` gives (RECITATION, MALFORMED_FUNCTION_CALL, …). */
  geminiFinish?: string;
  /** Gemini only: the prompt is refused (promptFeedback.blockReason, no candidate). */
  geminiPromptBlock?: string;
  /** Gemini only: function calls without ids (Vertex, older Gemini API answers). */
  geminiNoCallIds?: boolean;
};

export type Reply =
  | OkReply
  | { kind: 'http-error'; status: number; type?: string; message?: string; retryAfter?: string; code?: string }
  /** Streamed: the blocks' events, then the protocol's in-stream error, then close. Not streamed: HTTP 500. */
  | { kind: 'fail-mid-stream'; blocks: ReplyBlock[]; message?: string }
  | { kind: 'reset-before-headers' }
  /** Streamed: the blocks' events, then the socket is destroyed. Not streamed: half a JSON body, then destroyed. */
  | { kind: 'reset-mid-stream'; blocks: ReplyBlock[] }
  /** Streamed: the blocks' events, silence for `ms`, then the normal ending. Not streamed: headers, silence, body. */
  | { kind: 'stall'; afterBlocks: ReplyBlock[]; ms: number }
  | { kind: 'delay-headers'; ms: number; then: Reply };

export interface ReceivedRequest {
  protocol: Protocol;
  method: string;
  /** Path without the query string (see `url` for the original). */
  path: string;
  /** Original request target, query included (Claude Code sends `?beta=true`). Always set by the server. */
  url?: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; the raw text if it was not JSON; undefined when empty. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  stream: boolean;
}

export interface ScriptedUpstream {
  /** http://127.0.0.1:<port>, the base for all four protocols (Gemini under /v1beta). */
  url: string;
  received: ReceivedRequest[];
  /** FIFO; when empty the default behaviour answers. */
  enqueue(...replies: Reply[]): void;
  setDefault(fn: (req: ReceivedRequest) => Reply): void;
  /** Generation requests being answered right now. */
  readonly inFlight: number;
  /** The most generation requests answered at once since start (or the last reset). */
  readonly maxInFlight: number;
  resetMaxInFlight(): void;
  /** Generation exchanges the gateway hung up on before their reply was complete. */
  readonly aborted: number;
  close(): Promise<void>;
}

export interface ScriptedUpstreamOptions {
  defaultReply?: (req: ReceivedRequest) => Reply;
  /** Model ids listed by GET /v1/models (default: one scripted model). */
  models?: string[];
  /** Messages: refuse, as Anthropic does with thinking on, a history whose thinking signature this server
   * did not issue for that text, or whose tool-use turn lost its thinking block (messages.ts). */
  verifyThinking?: boolean;
}
