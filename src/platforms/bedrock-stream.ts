// Bedrock's `application/vnd.amazon.eventstream` answer → the Anthropic Messages SSE bytes the
// Messages driver and the pass-through relay already read. AWS's own codec (@smithy/eventstream-codec)
// parses each binary message and checks its CRCs; this file only cuts the byte stream into whole
// messages by their prelude's total length (a message may span chunks, a chunk may hold several).
// A `chunk` event carries one Messages event as base64 JSON: decoded, it goes out as
// `event: <type>\ndata: <json>\n\n` without being parsed. An exception message becomes a Messages
// `error` event of the matching type, after which the stream ends (Bedrock sends nothing after one).
import { Transform, pipeline, type Readable, type TransformCallback } from 'node:stream';
import type { EventStreamCodec, Message } from '@smithy/eventstream-codec';
import { anthropicTypeOfException } from './bedrock-errors.js';

type Codec = Pick<EventStreamCodec, 'decode'>;

/** Prelude (total length, headers length, prelude CRC) plus the message CRC. */
const MIN_MESSAGE = 16;
/** AWS event-stream messages are at most 16 MiB (plus framing); anything larger is corrupt input. */
const MAX_MESSAGE = 16 * 1024 * 1024 + 1024;

const utf8 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
const fromUtf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');

let codecLoad: Promise<Codec> | undefined;
let loadedCodec: Codec | undefined;

/** AWS's codec, imported on first use (a gateway without Bedrock never loads it). */
export function loadEventStreamCodec(): Promise<Codec> {
  codecLoad ??= import('@smithy/eventstream-codec').then(({ EventStreamCodec }) => (loadedCodec = new EventStreamCodec(utf8, fromUtf8)));
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

export class BedrockEventStreamToSse extends Transform {
  private pending: Buffer | undefined;
  private ended = false;

  constructor(private readonly codec: Codec) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.ended) return done();
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
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
    this.pending = !this.ended && off < buf.length ? buf.subarray(off) : undefined;
    if (out !== '') this.push(out);
    // Nothing follows an exception: end the caller's stream now rather than when the socket closes.
    if (this.ended) this.push(null);
    done();
  }

  override _flush(done: TransformCallback): void {
    // A cut-off message: the Messages stream then lacks its message_stop, which the driver and the
    // relay report as an interrupted stream.
    this.pending = undefined;
    done();
  }

  /** One decoded message → SSE text ('' for events that carry nothing for the caller). */
  private frame(message: Message): string {
    const kind = headerString(message, ':message-type');
    if (kind === 'event') {
      if (headerString(message, ':event-type') !== 'chunk') return '';
      let bytes: unknown;
      try {
        bytes = (JSON.parse(utf8(message.body)) as { bytes?: unknown }).bytes;
      } catch {
        return this.fail('Amazon Bedrock sent a chunk that is not JSON');
      }
      if (typeof bytes !== 'string') return '';
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

/** The upstream body through the converter; an upstream failure or a caller abort tears down both. */
export function bedrockStreamBody(body: Readable, codec: Codec): Readable {
  const sse = new BedrockEventStreamToSse(codec);
  pipeline(body, sse, () => {
    // Errors reach the consumer through `sse` itself (pipeline destroys it with the error).
  });
  return sse;
}
