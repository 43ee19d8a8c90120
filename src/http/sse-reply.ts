// Writes a server-sent event stream to the caller: headers once, frames whole, backpressure to the
// upstream (pause until drain), and heartbeats during upstream silence. A caller leaving is noticed by
// the route (the reply's `close` event aborts the generation), not here.
// Frames produced in one turn of the event loop (typically every event of one upstream chunk) leave in
// one socket write at the end of that turn: no added latency, and one syscall instead of one per frame.
import type { ServerResponse } from 'node:http';

export class SseReply {
  private lastWrite = 0;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  /** Frames written this turn, not yet handed to the socket. */
  private pending = '';
  private readonly flush = (): void => {
    const text = this.pending;
    this.pending = '';
    if (text.length !== 0 && !this.raw.destroyed) this.raw.write(text);
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
    // Send the headers now: clients measure time to first byte from here.
    this.raw.flushHeaders();
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
    this.lastWrite = performance.now();
    if (this.pending.length === 0) queueMicrotask(this.flush);
    this.pending += frame;
    return !this.raw.writableNeedDrain;
  }

  onDrain(cb: () => void): void {
    this.raw.once('drain', cb);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.timer) clearInterval(this.timer);
    this.flush();
    if (!this.raw.destroyed) this.raw.end();
  }
}
