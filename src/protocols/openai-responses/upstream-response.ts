// What a Responses upstream answers: the response object (non-streamed body, and the snapshot inside
// lifecycle stream events), its output items, usage, and error bodies. Every field is optional and
// loosely typed on purpose: compatible servers omit or null out fields the SDK declares required,
// and the decoders tolerate all of it (responses.md §5, §8, §10).

export interface UsageWire {
  /** Includes cached tokens. */
  input_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  /** Includes reasoning tokens. */
  output_tokens?: number | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
  total_tokens?: number | null;
}

/** A message content part (`output_text` / `refusal`), or a reasoning `summary_text` / `reasoning_text`. */
export interface ContentPartWire {
  type?: string;
  text?: string | null;
  refusal?: string | null;
}

export interface SummaryPartWire {
  type: 'summary_text';
  text: string;
}

/** Any output item; which fields are present depends on `type`. */
export interface OutputItemWire {
  type?: string;
  id?: string;
  status?: string;
  /** message */
  role?: string;
  content?: ContentPartWire[] | null;
  /** function_call / custom_tool_call */
  call_id?: string | null;
  name?: string;
  namespace?: string | null;
  arguments?: string | null;
  input?: string | null;
  /** reasoning */
  summary?: SummaryPartWire[] | null;
  encrypted_content?: string | null;
}

/** `response.error` (`{code, message}`), the Open Responses nested error, and HTTP error bodies. */
export interface ErrorWire {
  message?: unknown;
  type?: unknown;
  param?: unknown;
  code?: unknown;
}

export interface ResponseWire {
  id?: string;
  object?: string;
  model?: string;
  status?: string;
  output?: OutputItemWire[] | null;
  usage?: UsageWire | null;
  error?: ErrorWire | null;
  incomplete_details?: { reason?: string | null } | null;
}

/** An HTTP error body: `{error:{message,type,param,code}}`; a few servers send `{error:"…"}`. */
export interface ErrorBodyWire {
  error?: ErrorWire | string | null;
  message?: unknown;
}
