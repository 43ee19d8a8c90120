// Server-sent events cut at frame boundaries, for relays that pass the upstream's bytes on as they
// are. A frame in the form every vendor sends — `event: NAME\ndata: {…}\n\n` — is handed over as a
// byte range with its event name; its data is decoded only if the relay asks. Anything else (comments,
// `id:` lines, multi-line data, a frame without `event:`, data that is not an object, a final frame
// without its blank line) goes through SseParser and is handed over parsed, so the SSE spec's rules
// apply to it as before. A stream with a `\r` anywhere or a byte-order mark is parsed whole from
// there on: line breaks other than LF make byte ranges unsafe to relay. A frame held past MAX_FRAME
// bytes without its blank line fails the stream (sink.fail) rather than growing without a bound.
import type { GatewayError } from '../errors.js';
import { frameTooLarge, MAX_FRAME, SseParser, type SseFrame } from './sse-parser.js';

/** A frame's data, decoded on demand. */
export interface FrameData {
  text(): string;
}

export interface SseSplitSink {
  /** A frame in the usual form, bytes [start, end) of `buf` (end is after its blank line). */
  raw(event: string, data: FrameData, buf: Buffer, start: number, end: number): void;
  /** Any other frame, as SseParser reads it. */
  parsed(frame: SseFrame): void;
  /** Everything a push (or end) delivered has been handed over. */
  flush(): void;
  /** A frame passed MAX_FRAME without its end; the splitter takes no more input. Without it, push throws. */
  fail?(err: GatewayError): void;
}

/** The data of the frame being handed over: a view on the chunk, decoded once if read. */
class RawData implements FrameData {
  buf: Buffer = EMPTY;
  start = 0;
  end = 0;
  private decoded: string | undefined;

  set(buf: Buffer, start: number, end: number): this {
    this.buf = buf;
    this.start = start;
    this.end = end;
    this.decoded = undefined;
    return this;
  }

  text(): string {
    return (this.decoded ??= this.buf.toString('utf8', this.start, this.end));
  }

  /** Let go of the chunk once its frames are handed over: a paced stream's next chunk is a second away,
   * and a chunk held that long outlives two scavenges and is promoted, per stream and per event. */
  clear(): void {
    this.buf = EMPTY;
    this.decoded = undefined;
  }
}

const EMPTY = Buffer.alloc(0);
const LF = 10;
const CR = 13;
const EVENT_PREFIX = Buffer.from('event: ', 'latin1');
const DATA_PREFIX = Buffer.from('data: ', 'latin1');
const BLANK_LINE = Buffer.from('\n\n', 'latin1');
const MAX_NAMES = 16;

export class SseSplitter {
  /** The start of a frame not yet complete (chunks as they came, not copied). */
  private rest: Buffer[] = [];
  private restLength = 0;
  /** Set once the stream is parsed whole (a `\r` or a byte-order mark was seen). */
  private whole: SseParser | undefined;
  /** Parses the odd frames of a stream relayed by ranges. */
  private readonly odd: SseParser;
  private readonly data = new RawData();
  private started = false;
  /** Event names seen so far (latin1, as they are compared byte for byte), at most MAX_NAMES. */
  private readonly names: string[] = [];
  private failed = false;
  private readonly tooLarge = (err: GatewayError): void => {
    this.failed = true;
    this.rest = [];
    this.restLength = 0;
    this.data.clear();
    // What this push completed goes first; then the failure.
    this.sink.flush();
    if (!this.sink.fail) throw err;
    this.sink.fail(err);
  };

  /** `dataOnly`: a frame of one `data: {…}` line and no `event:` line (the Chat Completions form) is
   * usual too, handed over raw as event `message`; other relays want those parsed (a Responses frame
   * without its event line is typed by its data). */
  constructor(
    private readonly sink: SseSplitSink,
    private readonly dataOnly = false,
  ) {
    this.odd = new SseParser((frame) => sink.parsed(frame), this.tooLarge);
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0 || this.failed) return;
    if (this.whole === undefined && (chunk.indexOf(CR) !== -1 || (!this.started && chunk[0] === 0xef))) this.parseWhole();
    this.started = true;
    if (this.whole !== undefined) {
      this.whole.push(chunk);
      if (!this.failed) this.sink.flush();
      return;
    }
    let pos = 0;
    if (this.restLength !== 0) {
      // The frame started in an earlier chunk: find its end across the boundary.
      const last = this.rest[this.rest.length - 1]!;
      const end = last[last.length - 1] === LF && chunk[0] === LF ? 1 : indexOfBlankLine(chunk, 0);
      if (end === -1) {
        this.rest.push(chunk);
        this.restLength += chunk.length;
        if (this.restLength > MAX_FRAME) return this.tooLarge(frameTooLarge());
        this.sink.flush();
        return;
      }
      this.rest.push(chunk.subarray(0, end));
      const frame = Buffer.concat(this.rest, this.restLength + end);
      this.rest = [];
      this.restLength = 0;
      this.segment(frame, 0, frame.length);
      pos = end;
    }
    for (;;) {
      // The usual frame, found with two searches for a line feed (its event line's and its data line's,
      // followed by the blank line) instead of a search for "\n\n" plus the same two inside segment().
      const end = this.usualFrame(chunk, pos);
      if (end !== -1) {
        pos = end;
        continue;
      }
      const blank = indexOfBlankLine(chunk, pos);
      if (blank === -1) break;
      this.segment(chunk, pos, blank);
      pos = blank;
    }
    if (pos < chunk.length) {
      this.rest.push(pos === 0 ? chunk : chunk.subarray(pos));
      this.restLength += chunk.length - pos;
      if (this.restLength > MAX_FRAME) return this.tooLarge(frameTooLarge());
    }
    this.data.clear();
    this.sink.flush();
  }

  /** End of input: a final frame without its blank line still counts (as SseParser has it). */
  end(): void {
    if (this.failed) return;
    if (this.whole !== undefined) {
      this.whole.end();
    } else {
      if (this.restLength !== 0) this.odd.push(Buffer.concat(this.rest, this.restLength).toString('utf8'));
      this.rest = [];
      this.restLength = 0;
      this.odd.end();
    }
    this.sink.flush();
  }

  /** From here on every byte goes through one SseParser, starting with the incomplete frame held. */
  private parseWhole(): void {
    const parser = new SseParser((frame) => this.sink.parsed(frame), this.tooLarge);
    const held = this.rest;
    this.rest = [];
    this.restLength = 0;
    for (const b of held) parser.push(b);
    this.rest = [];
    this.restLength = 0;
    this.whole = parser;
  }

  /**
   * When a complete frame in the usual form (`event: NAME\ndata: {…}\n\n`) starts at `start`, hands it
   * over and returns the index after its blank line; else -1 (segment() then decides, as before).
   */
  private usualFrame(buf: Buffer, start: number): number {
    if (!startsWith(buf, start, EVENT_PREFIX)) return this.dataOnly ? this.dataFrame(buf, start) : -1;
    const nameStart = start + EVENT_PREFIX.length;
    const nameEnd = buf.indexOf(LF, nameStart);
    if (nameEnd === -1 || !startsWith(buf, nameEnd + 1, DATA_PREFIX)) return -1;
    const dataStart = nameEnd + 1 + DATA_PREFIX.length;
    if (buf[dataStart] !== 0x7b) return -1;
    const dataEnd = buf.indexOf(LF, dataStart);
    if (dataEnd === -1 || buf[dataEnd + 1] !== LF || buf[dataEnd - 1] !== 0x7d || dataEnd - 1 <= dataStart) return -1;
    this.sink.raw(this.eventName(buf, nameStart, nameEnd), this.data.set(buf, dataStart, dataEnd), buf, start, dataEnd + 2);
    return dataEnd + 2;
  }

  /** The same for a frame of one `data: {…}` line (dataOnly). */
  private dataFrame(buf: Buffer, start: number): number {
    if (!startsWith(buf, start, DATA_PREFIX)) return -1;
    const dataStart = start + DATA_PREFIX.length;
    if (buf[dataStart] !== 0x7b) return -1;
    const dataEnd = buf.indexOf(LF, dataStart);
    if (dataEnd === -1 || buf[dataEnd + 1] !== LF || buf[dataEnd - 1] !== 0x7d || dataEnd - 1 <= dataStart) return -1;
    this.sink.raw('message', this.data.set(buf, dataStart, dataEnd), buf, start, dataEnd + 2);
    return dataEnd + 2;
  }

  /** The event name as a string; a stream repeats a handful of names, so recent ones are reused. */
  private eventName(buf: Buffer, start: number, end: number): string {
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name.length === end - start && sameBytes(buf, start, name)) return name;
    }
    const name = buf.toString('latin1', start, end);
    if (names.length < MAX_NAMES) names.push(name);
    return name;
  }

  /** One frame, bytes [start, end) of buf, ending with its blank line. */
  private segment(buf: Buffer, start: number, end: number): void {
    const nameStart = start + EVENT_PREFIX.length;
    const lastLf = end - 2;
    if (startsWith(buf, start, EVENT_PREFIX)) {
      const nameEnd = buf.indexOf(LF, nameStart);
      const dataStart = nameEnd + 1 + DATA_PREFIX.length;
      // One data line holding an object: `{` first, `}` last, no other line after it.
      if (
        nameEnd < lastLf &&
        dataStart + 1 < lastLf &&
        startsWith(buf, nameEnd + 1, DATA_PREFIX) &&
        buf[dataStart] === 0x7b &&
        buf[lastLf - 1] === 0x7d &&
        buf.indexOf(LF, dataStart) === lastLf
      ) {
        this.sink.raw(this.eventName(buf, nameStart, nameEnd), this.data.set(buf, dataStart, lastLf), buf, start, end);
        return;
      }
    }
    if (this.dataOnly && startsWith(buf, start, DATA_PREFIX)) {
      const dataStart = start + DATA_PREFIX.length;
      if (dataStart + 1 < lastLf && buf[dataStart] === 0x7b && buf[lastLf - 1] === 0x7d && buf.indexOf(LF, dataStart) === lastLf) {
        this.sink.raw('message', this.data.set(buf, dataStart, lastLf), buf, start, end);
        return;
      }
    }
    // The segment ends with a blank line, so the parser hands over its frame (if any) right away.
    this.odd.push(buf.toString('utf8', start, end));
  }
}

/** The index just after the next blank line (`\n\n`) at or after `from`, or -1. */
function indexOfBlankLine(buf: Buffer, from: number): number {
  const i = buf.indexOf(BLANK_LINE, from);
  return i === -1 ? -1 : i + 2;
}

/** Whether bytes [at, at + name.length) of buf are the latin1 string `name`. */
function sameBytes(buf: Buffer, at: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (buf[at + i] !== name.charCodeAt(i)) return false;
  return true;
}

function startsWith(buf: Buffer, at: number, prefix: Buffer): boolean {
  if (at + prefix.length > buf.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/** The data of a frame already parsed. */
export function textData(text: string): FrameData {
  return { text: () => text };
}
