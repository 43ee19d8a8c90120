// The contract of a pass-through relay: re-emit the upstream's frames as they arrive, reading only
// the few that carry usage, the finish or a failure. One relay per front-door protocol.
import type { SseFrame } from '../../drivers/sse-parser.js';
import type { FrameData } from '../../drivers/sse-splitter.js';
import type { GatewayError } from '../../errors.js';

export interface Relay {
  /** The frame text to write to the caller (a frame the lane had to parse: its form is normalised). */
  frame(frame: SseFrame): string;
  /** A frame relayed as the upstream's bytes: the tap reads what it needs (the data is decoded only
   * for the few frames it reads). Returns the text to write instead, or undefined: the bytes go as
   * they came. */
  tap(event: string, data: FrameData): string | undefined;
  /** The frame reports a failure before anything was relayed: the lane turns it into a real status
   * (and the router may retry or fall back). Classified with the driver's own table. */
  earlyError(frame: SseFrame): GatewayError | undefined;
  /** Frames of one `data:` line without an `event:` line are this protocol's usual form (Chat
   * Completions): relayed as bytes too (SseSplitter's dataOnly). */
  readonly dataOnlyFrames?: boolean;
  /** What closes a complete stream after the upstream's last frame (Chat: `data: [DONE]`, written once
   * whatever the upstream sent). */
  endFrames?(): string;
  /** True once the protocol's terminal frame went through. */
  readonly finished: boolean;
  /** The frames that close a stream cut short (Messages: error; Responses: error + response.failed). */
  closingFrames(err: GatewayError): string;
  /** Responses: the `response` of the terminal completed/incomplete frame (what the store keeps). */
  readonly finalResponse?: Record<string, unknown>;
  /** A non-streamed answer's body: read usage and the finish; rewrite `model` when asked. Returns the
   * text to send (the upstream's own when nothing changed). */
  result(text: string, obj: Record<string, unknown>): string;
}
