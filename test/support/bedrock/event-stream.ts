// Bedrock's stream framing, written with AWS's own codec: `chunk` events whose JSON body holds a
// Messages event as base64 `bytes` (plus Bedrock's random-length `p` padding), and exception messages.
import { randomBytes } from 'node:crypto';
import { EventStreamCodec } from '@smithy/eventstream-codec';

const codec = new EventStreamCodec(
  (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'),
  (s) => Buffer.from(s, 'utf8'),
);

const str = (value: string) => ({ type: 'string' as const, value });

/** The padding Bedrock adds so that frame sizes do not reveal token lengths. */
function padding(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const n = 1 + (randomBytes(1)[0]! % 40);
  let out = '';
  for (const b of randomBytes(n)) out += alphabet[b % alphabet.length];
  return out;
}

/** One Messages event (its JSON text) as a Bedrock `chunk` event message. */
export function chunkMessage(eventJson: string): Uint8Array {
  const body = JSON.stringify({ bytes: Buffer.from(eventJson, 'utf8').toString('base64'), p: padding() });
  return codec.encode({
    headers: { ':event-type': str('chunk'), ':content-type': str('application/json'), ':message-type': str('event') },
    body: Buffer.from(body, 'utf8'),
  });
}

/** An in-stream exception (`throttlingException`, `modelStreamErrorException`, …). */
export function exceptionMessage(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: { ':exception-type': str(exceptionType), ':content-type': str('application/json'), ':message-type': str('exception') },
    body: Buffer.from(JSON.stringify({ message }), 'utf8'),
  });
}

/** The data line of an SSE frame `event: x\ndata: {…}\n\n` (what the Messages renderer writes). */
export function sseData(frame: string): string {
  const line = frame.split('\n').find((l) => l.startsWith('data: '));
  if (!line) throw new Error(`not an SSE frame: ${frame}`);
  return line.slice(6);
}
