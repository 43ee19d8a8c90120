// What each vendor protocol renderer provides to the server. The server decides timing and failures; the
// renderers only know the wire format.
import type { OkReply, ReceivedRequest } from './types.js';

export interface ErrorSpec {
  status: number;
  type?: string;
  message?: string;
  code?: string;
}

/** A streamed reply cut into the phases the failure modes need. */
export interface StreamScript {
  /** From the first event through the end of the last block. */
  opening: string[];
  /** The normal ending (stop reason, usage, terminal event / [DONE]). */
  finish(): string[];
  /** The protocol's in-stream error after `opening`, in place of `finish()`. */
  fail(message: string): string[];
}

export interface ProtocolRenderer {
  /** Headers every response of this protocol carries (request id). */
  headers(): Record<string, string>;
  json(reply: OkReply, req: ReceivedRequest): unknown;
  stream(reply: OkReply, req: ReceivedRequest): StreamScript;
  error(spec: ErrorSpec): unknown;
}
