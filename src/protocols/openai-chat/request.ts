// What the gateway sends to a Chat Completions upstream (openai SDK 6.49 `ChatCompletionCreateParams`,
// the subset we emit, plus the `reasoning_content` extension). Plain types, not TypeBox: the gateway
// never receives this protocol from a caller, so there is nothing to validate at run time.

export interface ChatTextPart {
  type: 'text';
  text: string;
}

export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
}

export interface ChatFilePart {
  type: 'file';
  file: { filename?: string; file_data?: string };
}

export type ChatUserContentPart = ChatTextPart | ChatImagePart | ChatFilePart;

export interface ChatSystemMessage {
  role: 'system' | 'developer';
  content: string;
}

export interface ChatUserMessage {
  role: 'user';
  content: string | ChatUserContentPart[];
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatAssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ChatToolCall[];
  /** DeepSeek (and compatible) extension: the turn's reasoning, required back on tool-call turns. */
  reasoning_content?: string;
}

export interface ChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

export type ChatMessage = ChatSystemMessage | ChatUserMessage | ChatAssistantMessage | ChatToolMessage;

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
}

export type ChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ChatResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema: Record<string, unknown>; strict?: boolean } };

export type ChatReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ChatFunctionTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: false;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  stop?: string[];
  reasoning_effort?: ChatReasoningEffort;
  response_format?: ChatResponseFormat;
  user?: string;
  stream?: true;
  stream_options?: { include_usage: true };
}
