// What the gateway sends to an OpenAI Responses upstream (openai SDK 6.49 `ResponseCreateParams`, the
// subset the driver emits). Plain types, not TypeBox: this body is built by the gateway, never
// received, so there is nothing to validate at run time.

export interface InputTextParam {
  type: 'input_text';
  text: string;
}

export interface InputImageParam {
  type: 'input_image';
  /** An https URL or a `data:<mime>;base64,…` URL. */
  image_url?: string;
  file_id?: string;
  detail: string;
}

export interface InputFileParam {
  type: 'input_file';
  filename?: string;
  /** `data:<mime>;base64,…`. */
  file_data?: string;
  file_url?: string;
  file_id?: string;
}

export type InputContentParam = InputTextParam | InputImageParam | InputFileParam;

export interface OutputTextParam {
  type: 'output_text';
  text: string;
  annotations: [];
}

export interface RefusalParam {
  type: 'refusal';
  refusal: string;
}

export interface UserMessageParam {
  type: 'message';
  role: 'user';
  content: InputContentParam[];
}

export interface AssistantMessageParam {
  type: 'message';
  role: 'assistant';
  content: (OutputTextParam | RefusalParam)[];
}

export interface FunctionCallParam {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  namespace?: string;
}

export interface CustomToolCallParam {
  type: 'custom_tool_call';
  call_id: string;
  name: string;
  input: string;
  namespace?: string;
}

export interface FunctionCallOutputParam {
  type: 'function_call_output';
  call_id: string;
  output: string | InputContentParam[];
}

export interface CustomToolCallOutputParam {
  type: 'custom_tool_call_output';
  call_id: string;
  output: string | InputContentParam[];
}

export interface SummaryTextParam {
  type: 'summary_text';
  text: string;
}

/** A replayed reasoning item: only meaningful statelessly with its `encrypted_content`. */
export interface ReasoningItemParam {
  type: 'reasoning';
  id: string;
  summary: SummaryTextParam[];
  encrypted_content: string;
}

export type InputItemParam =
  | UserMessageParam
  | AssistantMessageParam
  | FunctionCallParam
  | CustomToolCallParam
  | FunctionCallOutputParam
  | CustomToolCallOutputParam
  | ReasoningItemParam;

export interface FunctionToolParam {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown>;
  /** Always explicit: an omitted `strict` makes the API rewrite the schema into strict mode. */
  strict: boolean;
}

export interface CustomToolParam {
  type: 'custom';
  name: string;
  description?: string;
  /** `{type:"text"}` | `{type:"grammar", syntax, definition}`, verbatim. */
  format?: unknown;
}

export interface NamespaceToolParam {
  type: 'namespace';
  name: string;
  description: string;
  tools: (FunctionToolParam | CustomToolParam)[];
}

export type ToolParam = FunctionToolParam | CustomToolParam | NamespaceToolParam;

export type ToolChoiceParam =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function' | 'custom'; name: string }
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: { type: 'function' | 'custom'; name: string }[] };

export type ReasoningEffortParam = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ReasoningParam {
  effort?: ReasoningEffortParam;
  summary?: 'auto' | 'concise' | 'detailed';
}

export type TextFormatParam =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean; description?: string };

export interface TextParam {
  format?: TextFormatParam;
  verbosity?: unknown;
  [key: string]: unknown;
}

export interface ResponsesCreateBody {
  model: string;
  instructions?: string;
  input: InputItemParam[];
  tools?: ToolParam[];
  tool_choice?: ToolChoiceParam;
  parallel_tool_calls?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  reasoning?: ReasoningParam;
  text?: TextParam;
  metadata?: Record<string, string>;
  safety_identifier?: string;
  /** Always false: the gateway never keeps state at the upstream. */
  store: false;
  include: string[];
  stream: boolean;
  /** Same-family caller fields forwarded verbatim (prompt_cache_key, service_tier, truncation, …). */
  [key: string]: unknown;
}
