// One Responses stream frame (responses.md §9), as a single wide shape: the decoder parses each frame
// once and dispatches on `type`, reading only the fields that event type carries.
import type { ContentPartWire, ErrorWire, OutputItemWire, ResponseWire } from './upstream-response.js';

export interface StreamEventWire {
  type?: string;
  sequence_number?: number;
  /** response.created / in_progress / queued / completed / incomplete / failed */
  response?: ResponseWire | null;
  /** output_item.added / .done */
  output_index?: number;
  item?: OutputItemWire | null;
  item_id?: string;
  /** content_part.*, output_text.*, refusal.*, reasoning_text.* */
  content_index?: number;
  part?: ContentPartWire | null;
  /** reasoning_summary_* */
  summary_index?: number;
  /** every `.delta` event */
  delta?: string;
  /** function_call_arguments.done */
  arguments?: string;
  /** custom_tool_call_input.done */
  input?: string;
  /** `error` event, flat shape (OpenAI SDK type) */
  code?: unknown;
  message?: unknown;
  param?: unknown;
  /** `error` event, nested shape (Open Responses) */
  error?: ErrorWire | null;
}
