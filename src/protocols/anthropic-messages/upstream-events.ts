// One Messages stream frame (messages.md §12) as a single wide shape: the decoder parses each frame
// once and dispatches on `type`, reading only the fields that event type carries.
import type { UpstreamContentBlockWire, UpstreamErrorWire, UpstreamMessageWire, UpstreamUsageWire } from './upstream-response.js';

export interface UpstreamDeltaWire {
  type?: string;
  /** text_delta */
  text?: string;
  /** thinking_delta */
  thinking?: string;
  /** signature_delta */
  signature?: string;
  /** input_json_delta */
  partial_json?: string;
  /** message_delta */
  stop_reason?: string | null;
  stop_sequence?: string | null;
}

export interface UpstreamStreamEventWire {
  type?: string;
  /** message_start */
  message?: UpstreamMessageWire | null;
  /** content_block_start / _delta / _stop */
  index?: number;
  content_block?: UpstreamContentBlockWire | null;
  /** content_block_delta, message_delta */
  delta?: UpstreamDeltaWire | null;
  /** message_delta (cumulative counts) */
  usage?: UpstreamUsageWire | null;
  /** error */
  error?: UpstreamErrorWire | null;
  request_id?: string;
}
