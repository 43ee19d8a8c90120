// Writes a server-sent event stream to the caller: headers once, frames whole, backpressure to the
// upstream (pause until drain), heartbeats during upstream silence, and client-abort detection.
import type { ServerResponse } from 'node:http';

export class SseReply {
  private lastWrite = 0;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  /** The caller went away before the stream ended. */
  aborted = false;

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
    return this.raw.write(frame);
  }

  onDrain(cb: () => void): void {
    this.raw.once('drain', cb);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.timer) clearInterval(this.timer);
    if (!this.raw.destroyed) this.raw.end();
  }

  stopHeartbeat(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
