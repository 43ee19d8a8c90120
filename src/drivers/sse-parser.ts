// Incremental server-sent events parser: bytes in, frames out. Survives any chunk split (including
// inside a UTF-8 sequence or between \r and \n), CRLF / CR / LF line endings, comment lines, `data:`
// with or without a space, and multi-line data (joined with "\n", per the SSE spec). A frame that grows
// past MAX_FRAME without its end (a broken or hostile upstream) fails the stream instead of growing
// without a bound.
import { StringDecoder } from 'node:string_decoder';
import { GatewayError } from '../errors.js';

/** The most an unfinished frame may hold (its data lines and the line being read), in characters: far
 * above any event a vendor sends, and the same bound as an AWS event-stream message. */
export const MAX_FRAME = 16 * 1024 * 1024;

/** The stream's error once a frame passed MAX_FRAME without its end. */
export function frameTooLarge(): GatewayError {
  return new GatewayError('api_error', `the upstream sent an event of over ${MAX_FRAME / (1024 * 1024)} MiB without ending it`);
}

export interface SseFrame {
  /** The `event:` field, or undefined when the frame had none (Chat Completions streams). */
  event: string | undefined;
  data: string;
}

export class SseParser {
  // StringDecoder, not TextDecoder: the same UTF-8 decoding (a sequence cut between chunks is held
  // back, invalid bytes become U+FFFD) for a fraction of the cost per chunk (TextDecoder's streaming
  // decode was ~4 % of a translated stream's CPU). TextDecoder dropped a leading BOM; `started` does.
  private readonly decoder = new StringDecoder('utf8');
  private started = false;
  private buffer = '';
  private event: string | undefined = undefined;
  /** The frame's first data line, and any further ones (multi-line data is rare). Not one array per
   * frame: it would be held from one frame to the next, a second apart on a paced stream, and promoted. */
  private data: string | undefined = undefined;
  private moreData: string[] | undefined = undefined;
  private sawCr = false;
  /** Characters of the frame's data lines so far (with `buffer`, what MAX_FRAME bounds). */
  private dataChars = 0;
  private failed = false;

  /** `onTooLarge`: a frame passed MAX_FRAME (the parser then takes no more input); without it, push throws. */
  constructor(
    private readonly onFrame: (frame: SseFrame) => void,
    private readonly onTooLarge?: (err: GatewayError) => void,
  ) {}

  push(chunk: Uint8Array | string): void {
    if (this.failed) return;
    this.read(chunk);
    if (this.buffer.length + this.dataChars > MAX_FRAME) this.fail();
  }

  private fail(): void {
    this.failed = true;
    this.buffer = '';
    this.data = undefined;
    this.moreData = undefined;
    this.dataChars = 0;
    const err = frameTooLarge();
    if (!this.onTooLarge) throw err;
    this.onTooLarge(err);
  }

  private read(chunk: Uint8Array | string): void {
    let text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (text.length === 0) return;
    if (!this.started) {
      this.started = true;
      // The SSE spec ignores one U+FEFF at the start of the stream.
      if (text.charCodeAt(0) === 0xfeff) {
        text = text.slice(1);
        if (text.length === 0) return;
      }
    }
    let start = 0;
    let buf = this.buffer;
    let i = 0;
    // A \r at the end of the previous chunk already ended a line; a \n right after it is the same break.
    if (this.sawCr && text.charCodeAt(0) === 10) start = i = 1;
    this.sawCr = false;
    if (text.indexOf('\r', i) === -1) {
      // The usual case, LF only: let indexOf find the line ends (native, far faster than a char loop).
      for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
        const line = buf.length ? buf + text.slice(start, nl) : text.slice(start, nl);
        buf = '';
        this.line(line);
        start = nl + 1;
      }
      this.buffer = start < text.length ? buf + text.slice(start) : buf;
      return;
    }
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = buf.length ? buf + text.slice(start, i) : text.slice(start, i);
      buf = '';
      this.line(line);
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.sawCr = true;
        }
      }
      start = i + 1;
    }
    this.buffer = start < text.length ? buf + text.slice(start) : buf;
  }

  /** Flush at end of input: a final frame without its blank line still counts. */
  end(): void {
    if (this.failed) return;
    const rest = this.decoder.end();
    if (rest) this.push(rest);
    if (this.buffer.length) {
      const line = this.buffer;
      this.buffer = '';
      this.line(line);
    }
    this.dispatch();
  }

  private line(line: string): void {
    if (line.length === 0) {
      this.dispatch();
      return;
    }
    const c0 = line.charCodeAt(0);
    if (c0 === 58 /* : */) return; // comment
    const colon = line.indexOf(':');
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    if (field === 'data') {
      this.dataChars += value.length;
      if (this.data === undefined) this.data = value;
      else (this.moreData ??= []).push(value);
    } else if (field === 'event') this.event = value;
    // id / retry / unknown fields: not used by any protocol we speak
  }

  private dispatch(): void {
    if (this.data === undefined) {
      this.event = undefined;
      return;
    }
    const data = this.moreData === undefined ? this.data : this.data + '\n' + this.moreData.join('\n');
    const frame: SseFrame = { event: this.event, data };
    this.event = undefined;
    this.data = undefined;
    this.moreData = undefined;
    this.dataChars = 0;
    this.onFrame(frame);
  }
}
