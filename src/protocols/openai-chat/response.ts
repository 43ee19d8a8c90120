// What Chat Completions upstreams answer: `chat.completion` bodies, `chat.completion.chunk` stream
// frames, and error bodies. Every field is optional or loosely typed on purpose: compatible servers
// (vLLM, llama.cpp, Ollama, DeepSeek, OpenRouter) omit, null out, or re-type fields the openai SDK
// declares required (chat-completions.md §8), and decoders must tolerate all of it.

export interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek. */
  prompt_cache_hit_tokens?: number | null;
  prompt_cache_miss_tokens?: number | null;
}

export interface ChatToolCallFunction {
  name?: string | null;
  /** A JSON string per the spec; some servers send the parsed object instead. */
  arguments?: string | Record<string, unknown> | null;
}

export interface ChatResponseToolCall {
  id?: string | null;
  type?: string;
  function?: ChatToolCallFunction | null;
  /** OpenAI custom tool calls (never requested by the gateway, tolerated). */
  custom?: { name?: string; input?: string } | null;
}

export interface ChatDeltaToolCall extends ChatResponseToolCall {
  /** Missing on some servers: then the position in the array. */
  index?: number;
}

export interface ChatDelta {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  /** DeepSeek, llama.cpp, vLLM ≤0.8, SGLang. */
  reasoning_content?: string | null;
  /** vLLM ≥0.9, OpenRouter, SGLang. */
  reasoning?: string | null;
  tool_calls?: ChatDeltaToolCall[] | null;
}

export interface ChatChunkChoice {
  index?: number;
  delta?: ChatDelta | null;
  finish_reason?: string | null;
}

/** A wire error object: OpenAI `{message,type,param,code}`, OpenRouter `{code:<number>,message,metadata}`,
 * vLLM `{object:"error",message,type,code:<number>}`. */
export interface ChatWireError {
  message?: unknown;
  type?: unknown;
  param?: unknown;
  code?: unknown;
  metadata?: unknown;
}

export interface ChatCompletionChunk {
  id?: string;
  object?: string;
  model?: string;
  choices?: ChatChunkChoice[] | null;
  usage?: ChatUsage | null;
  /** A mid-stream failure (OpenAI, vLLM, OpenRouter); Ollama sends a plain string. */
  error?: ChatWireError | string | null;
  /** vLLM sends its error object as the whole payload. */
  message?: unknown;
}

export interface ChatResponseMessage {
  role?: string;
  /** A string per the spec; a few servers answer with text parts. */
  content?: string | { type?: string; text?: string }[] | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ChatResponseToolCall[] | null;
}

export interface ChatCompletion {
  id?: string;
  object?: string;
  model?: string;
  choices?: { index?: number; message?: ChatResponseMessage | null; finish_reason?: string | null }[] | null;
  usage?: ChatUsage | null;
  error?: ChatWireError | string | null;
}

/** Any error body: `{error:{…}}`, `{error:"…"}` (Ollama), vLLM's bare object, FastAPI `{detail}`. */
export interface ChatErrorBody extends ChatWireError {
  object?: unknown;
  error?: ChatWireError | string | null;
  detail?: unknown;
}
