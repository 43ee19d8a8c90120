// Bedrock's `application/vnd.amazon.eventstream` answer → the Anthropic Messages SSE bytes the
// Messages driver and the pass-through relay already read. AWS's own codec (@smithy/eventstream-codec)
// parses each binary message and checks its CRCs; this file only cuts the byte stream into whole
// messages by their prelude's total length (a message may span chunks, a chunk may hold several).
// A `chunk` event carries one Messages event as base64 JSON: decoded, it goes out as
// `event: <type>\ndata: <json>\n\n` without being parsed. An exception message becomes a Messages
// `error` event of the matching type, after which the stream ends (Bedrock sends nothing after one).
import { Readable } from 'node:stream';
import type { EventStreamCodec, Message } from '@smithy/eventstream-codec';
import { anthropicTypeOfException } from './bedrock-errors.js';

type Codec = Pick<EventStreamCodec, 'decode'>;

/** Prelude (total length, headers length, prelude CRC) plus the message CRC. */
const MIN_MESSAGE = 16;
/** AWS event-stream messages are at most 16 MiB (plus framing); anything larger is corrupt input. */
const MAX_MESSAGE = 16 * 1024 * 1024 + 1024;

const utf8 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/** The codec decodes every header name and string value through this: they are short ASCII
 * (`:event-type`, `chunk`, …), for which a loop beats making a Buffer view per string. */
const headerUtf8 = (b: Uint8Array): string => {
  const n = b.byteLength;
  if (n > 32) return utf8(b);
  let s = '';
  for (let i = 0; i < n; i++) {
    const c = b[i]!;
    if (c > 0x7f) return utf8(b);
    s += String.fromCharCode(c);
  }
  return s;
};
const fromUtf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');

let codecLoad: Promise<Codec> | undefined;
let loadedCodec: Codec | undefined;

/** AWS's codec, imported on first use (a gateway without Bedrock never loads it). */
export function loadEventStreamCodec(): Promise<Codec> {
  codecLoad ??= import('@smithy/eventstream-codec').then(
    ({ EventStreamCodec }) => (loadedCodec = new EventStreamCodec(headerUtf8, fromUtf8)),
    (err: unknown) => {
      codecLoad = undefined; // the next request tries again
      throw err;
    },
  );
  return codecLoad;
}

/** The codec once loaded (prepare() loads it before any stream is answered). */
export function eventStreamCodec(): Codec | undefined {
  return loadedCodec;
}

function headerString(message: Message, name: string): string | undefined {
  const h = message.headers[name];
  return h !== undefined && h.type === 'string' ? h.value : undefined;
}

function errorFrame(type: string, message: string): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`;
}

const TYPE_PREFIX = '{"type":"';

/** The Messages event's `type`: read off the text when it leads (as Anthropic writes it), else parsed. */
function eventType(json: string): string | undefined {
  if (json.startsWith(TYPE_PREFIX)) {
    const end = json.indexOf('"', TYPE_PREFIX.length);
    if (end > 0) return json.slice(TYPE_PREFIX.length, end);
  }
  try {
    const parsed = JSON.parse(json) as { type?: unknown };
    return typeof parsed.type === 'string' ? parsed.type : undefined;
  } catch {
    return undefined;
  }
}

const BYTES_KEY = '"bytes":"';

/** A chunk event's base64 `bytes` as text: read off the body when it is plain (it always is: base64
 * needs no escapes), parsed as JSON otherwise. */
function chunkBytes(body: Uint8Array): string | undefined {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1');
  const at = text.indexOf(BYTES_KEY);
  if (at >= 0) {
    const start = at + BYTES_KEY.length;
    const end = text.indexOf('"', start);
    if (end > 0 && text.lastIndexOf('\\', end) < start) return text.slice(start, end);
  }
  try {
    const bytes = (JSON.parse(utf8(body)) as { bytes?: unknown }).bytes;
    return typeof bytes === 'string' ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** The conversion, fed the upstream's chunks as they come; `ended` once the stream can say no more. */
export class EventStreamToSse {
  /** The start of a message not yet whole: the chunks as they came, joined once it is (a message of
   * 16 MiB in 4 KiB chunks would otherwise be copied again with every chunk: quadratic). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The pending message's total length once its prelude is in, else 0. */
  private pendingNeed = 0;
  ended = false;

  constructor(private readonly codec: Codec) {}

  /** One upstream chunk → the SSE text of the whole messages it completes ('' if none). */
  feed(chunk: Buffer): string {
    if (this.ended) return '';
    let buf = chunk;
    if (this.pendingBytes !== 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingNeed === 0) {
        if (this.pendingBytes < 4) return '';
        // The prelude's length may be cut across pieces of under four bytes: join those first.
        if (this.pending[0]!.length < 4) this.pending = [Buffer.concat(this.pending, this.pendingBytes)];
        this.pendingNeed = this.pending[0]!.readUInt32BE(0);
      }
      const need = this.pendingNeed;
      // Short of a whole message: wait (a bad length is joined at once, for the loop to refuse).
      if (need >= MIN_MESSAGE && need <= MAX_MESSAGE && this.pendingBytes < need) return '';
      buf = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
      this.pendingNeed = 0;
    }
    let off = 0;
    let out = '';
    while (buf.length - off >= 4) {
      const length = buf.readUInt32BE(off);
      if (length < MIN_MESSAGE || length > MAX_MESSAGE) {
        out += this.fail('Amazon Bedrock sent a malformed event stream (bad message length)');
        break;
      }
      if (buf.length - off < length) break;
      let message: Message;
      try {
        message = this.codec.decode(buf.subarray(off, off + length));
      } catch (err) {
        out += this.fail(`Amazon Bedrock sent a malformed event stream (${(err as Error).message})`);
        break;
      }
      off += length;
      out += this.frame(message);
      if (this.ended) break;
    }
    if (!this.ended && off < buf.length) {
      // Out of a joined buffer, the rest is copied: a view would keep the whole joined message alive.
      const rest = buf === chunk ? buf.subarray(off) : Buffer.from(buf.subarray(off));
      this.pending.push(rest);
      this.pendingBytes = rest.length;
      this.pendingNeed = rest.length >= 4 ? rest.readUInt32BE(0) : 0;
    }
    return out;
  }

  /** One decoded message → SSE text ('' for events that carry nothing for the caller). */
  private frame(message: Message): string {
    const kind = headerString(message, ':message-type');
    if (kind === 'event') {
      if (headerString(message, ':event-type') !== 'chunk') return '';
      const bytes = chunkBytes(message.body);
      if (bytes === undefined) return '';
      let json = Buffer.from(bytes, 'base64').toString('utf8');
      // SSE data must be one line; Anthropic's JSON always is, but re-encode if a newline slipped in.
      if (json.indexOf('\n') >= 0 || json.indexOf('\r') >= 0) {
        try {
          json = JSON.stringify(JSON.parse(json));
        } catch {
          return this.fail('Amazon Bedrock sent a chunk whose payload is not JSON');
        }
      }
      const type = eventType(json);
      // A payload without a type has no SSE event name: nothing a Messages client could read.
      return type === undefined ? '' : `event: ${type}\ndata: ${json}\n\n`;
    }
    if (kind === 'exception') {
      const exception = headerString(message, ':exception-type') ?? 'internalServerException';
      let text = '';
      try {
        const body = JSON.parse(utf8(message.body)) as { message?: unknown; Message?: unknown };
        const said = body.message ?? body.Message;
        if (typeof said === 'string') text = said;
      } catch {
        // keep the type alone
      }
      this.ended = true;
      return errorFrame(anthropicTypeOfException(exception), text !== '' ? text : `${exception} from Amazon Bedrock`);
    }
    if (kind === 'error') {
      const code = headerString(message, ':error-code') ?? 'UnknownError';
      return this.fail(headerString(message, ':error-message') ?? `${code} from Amazon Bedrock`);
    }
    return '';
  }

  private fail(message: string): string {
    this.ended = true;
    return errorFrame('api_error', message);
  }
}

/**
 * The upstream body → a Readable of Messages SSE. A plain Readable fed from the body's 'data' events
 * (not a Transform in a pipeline: that costs several microseconds per event on the hot path), with
 * backpressure both ways: a full buffer pauses the body, a read resumes it; destroying the result
 * (the caller left) destroys the body; an upstream failure reaches the reader as an error. A cut-off
 * message at the end leaves the Messages stream without its message_stop, which the driver and the
 * relay report as an interrupted stream.
 */
export function bedrockStreamBody(body: Readable, codec: Codec): Readable {
  const conv = new EventStreamToSse(codec);
  let done = false;
  const out = new Readable({
    read() {
      if (!done && body.isPaused()) body.resume();
    },
    destroy(err, callback) {
      done = true;
      if (!body.destroyed) body.destroy();
      callback(err);
    },
  });
  const finish = () => {
    if (done) return;
    done = true;
    out.push(null);
  };
  body.on('data', (chunk: Buffer) => {
    if (done) return;
    const text = conv.feed(chunk);
    if (text !== '' && !out.push(text)) body.pause();
    // Nothing follows an exception: end the caller's stream now rather than when the socket closes.
    if (conv.ended) finish();
  });
  body.on('end', finish);
  body.on('error', (err) => {
    if (!done) {
      done = true;
      out.destroy(err);
    }
  });
  return out;
}
