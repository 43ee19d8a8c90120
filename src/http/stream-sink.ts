// Where a streamed answer's encoded events go: an SSE reply (sse-reply.ts) or one response on a
// WebSocket (socket-sink.ts). The lanes and the event delivery write to it and never ask which.
/** A stream of encoded events toward the caller (SseReply; SocketSink). Frames are SSE text in the
 * form the codecs and relays write (`event: …\ndata: {…}\n\n`); a sink frames them its own way. */
export interface StreamSink {
  /** Commit the answer (HTTP: status 200 and these headers) and start the keep-alive. */
  open(headers: Record<string, string>, onSilence: () => void): void;
  /** Whole frames; false when the caller's buffer is full: pause the source until onDrain. */
  write(frame: string): boolean;
  /** A run of whole frames in the usual form as the upstream's bytes (pass-through); not reused after. */
  writeBytes(chunk: Uint8Array): boolean;
  onDrain(cb: () => void): void;
  /** The last frame was written. */
  end(): void;
}
