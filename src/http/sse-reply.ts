// Writes a server-sent event stream to the caller: headers once, frames whole, backpressure to the
// upstream (pause until drain), and heartbeats during upstream silence. A caller leaving is noticed by
// the route (the reply's `close` event aborts the generation), not here.
// Frames produced in one turn of the event loop (typically every event of one upstream chunk) leave in
// one socket write at the end of that turn: no added latency, and one syscall instead of one per frame.
// The status line and headers ride in the first of those writes (node prepends them to the first
// chunk): a header-only write cost a syscall, a TCP segment and a client wake-up per stream.
import type { ServerResponse } from 'node:http';
import type { StreamSink } from './stream-sink.js';

export class SseReply implements StreamSink {
  private lastWrite = 0;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  /** Frames written this turn, not yet handed to the socket. */
  private pending = '';
  /** Pieces of this turn before `pending` when upstream bytes were relayed (writeBytes), in order. */
  private parts: (string | Uint8Array)[] | undefined = undefined;
  /** A flush is queued for the end of this turn. */
  private scheduled = false;
  /** The status line and headers went to the socket (`headersSent` turns true at writeHead already). */
  private headersOut = false;
  private readonly flush = (): void => {
    this.scheduled = false;
    // The turn's frames leave now: one clock reading for all of them (the heartbeat's silence clock).
    this.lastWrite = performance.now();
    const text = this.pending;
    this.pending = '';
    if (this.raw.destroyed) return;
    // Several writes in one turn still leave in one syscall: node corks a response until the next tick.
    const relayed = this.parts !== undefined;
    if (relayed) this.writeParts();
    if (text.length !== 0) this.raw.write(text);
    // The turn that opened the stream wrote no frame: the headers still leave now, not with a later one.
    else if (!this.headersOut && !relayed) this.raw.flushHeaders();
    this.headersOut = true;
  };

  constructor(
    private readonly raw: ServerResponse,
    private readonly heartbeatMs: number,
  ) {}

  /** Commit status 200 and the stream headers; start the heartbeat. */
  open(headers: Record<string, string>, onSilence: () => void): void {
    this.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    });
    // Headers are committed; they go out with this turn's frames (clients time the first byte from there).
    this.schedule();
    this.lastWrite = performance.now();
    const period = Math.max(50, Math.floor(this.heartbeatMs / 2));
    this.timer = setInterval(() => {
      if (performance.now() - this.lastWrite >= this.heartbeatMs) onSilence();
    }, period);
    this.timer.unref();
  }

  /** False when the socket buffer is full: the caller should pause its source until drain. */
  write(frame: string): boolean {
    if (this.ended || this.raw.destroyed) return true;
    this.schedule();
    this.pending += frame;
    return !this.raw.writableNeedDrain;
  }

  /** The upstream's own bytes (pass-through), queued like frames; the buffer must not be reused. */
  writeBytes(chunk: Uint8Array): boolean {
    if (this.ended || this.raw.destroyed) return true;
    this.schedule();
    const parts = (this.parts ??= []);
    if (this.pending.length !== 0) {
      parts.push(this.pending);
      this.pending = '';
    }
    parts.push(chunk);
    return !this.raw.writableNeedDrain;
  }

  private writeParts(): void {
    const parts = this.parts!;
    this.parts = undefined;
    for (const p of parts) this.raw.write(p);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flush);
  }

  onDrain(cb: () => void): void {
    this.raw.once('drain', cb);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.timer) clearInterval(this.timer);
    const text = this.pending;
    this.pending = '';
    if (this.raw.destroyed) return;
    // The last frames and the chunked terminator in one write (end() corks the socket).
    if (this.parts !== undefined) this.writeParts();
    this.raw.end(text.length !== 0 ? text : undefined);
  }
}
