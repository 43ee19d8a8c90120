// One response's events on a WebSocket: every SSE frame the encoders and relays write becomes one text
// message holding its data line (the event's JSON, as the SSE stream carries it: same type, same
// sequence_number), in order; comments (keep-alives) are dropped, the socket has ping/pong. Relayed
// upstream bytes are cut at frame boundaries and sent as views on the chunk, never decoded. Backpressure
// is the TCP socket's, as for SSE: a full buffer pauses the source until it drains.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { StreamSink } from './stream-sink.js';

const DATA = 'data: ';

export class SocketSink implements StreamSink {
  private ended = false;
  /** Frames sent, for the record (the connection's counters). */
  sent = 0;

  constructor(
    private readonly ws: WebSocket,
    /** The upgraded TCP socket under `ws` (its buffer is the backpressure signal). */
    private readonly socket: Duplex,
    private readonly onEnd: () => void,
  ) {}

  /** Nothing goes out: a socket has no status line, and ping/pong keeps it alive. */
  open(_headers: Record<string, string>, _onSilence: () => void): void {}

  write(frames: string): boolean {
    if (this.ended) return true;
    let at = 0;
    while (at < frames.length) {
      let end = frames.indexOf('\n\n', at);
      if (end < 0) end = frames.length;
      const data = dataLineAt(frames.startsWith(DATA, at), at, frames.indexOf('\n' + DATA, at));
      if (data >= 0 && data < end) this.send(frames.slice(data + DATA.length, end));
      at = end + 2;
    }
    return this.roomLeft();
  }

  writeBytes(chunk: Uint8Array): boolean {
    if (this.ended) return true;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let at = 0;
    while (at < buf.length) {
      let end = buf.indexOf('\n\n', at, 'latin1');
      if (end < 0) end = buf.length;
      const data = dataLineAt(buf.indexOf(DATA, at, 'latin1') === at, at, buf.indexOf('\n' + DATA, at, 'latin1'));
      if (data >= 0 && data < end) this.send(buf.subarray(data + DATA.length, end));
      at = end + 2;
    }
    return this.roomLeft();
  }

  private send(data: string | Buffer): void {
    // A text frame either way: the bytes are the upstream's UTF-8 JSON.
    this.ws.send(data, { binary: false });
    this.sent++;
  }

  private roomLeft(): boolean {
    return !(this.socket as Duplex & { writableNeedDrain?: boolean }).writableNeedDrain;
  }

  onDrain(cb: () => void): void {
    this.socket.once('drain', cb);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }
}

/** Where a frame's data line starts: at the frame's start, or after the line break before it (-1: none). */
function dataLineAt(startsWithData: boolean, frameStart: number, lineBreakBefore: number): number {
  if (startsWithData) return frameStart;
  return lineBreakBefore < 0 ? -1 : lineBreakBefore + 1;
}
