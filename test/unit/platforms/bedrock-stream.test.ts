import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { bedrockStreamBody, EventStreamToSse, loadEventStreamCodec } from '../../../src/platforms/bedrock-stream.js';
import { chunkMessage, exceptionMessage } from '../../support/bedrock/event-stream.js';

const codec = new EventStreamCodec((b) => Buffer.from(b).toString('utf8'), (s) => Buffer.from(s, 'utf8'));

async function convert(pieces: Uint8Array[]): Promise<string> {
  const out = bedrockStreamBody(Readable.from(pieces.map((p) => Buffer.from(p))), await loadEventStreamCodec());
  let text = '';
  for await (const chunk of out) text += chunk.toString();
  return text;
}

const EVENTS = [
  '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":3,"output_tokens":1}}}',
  '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
  '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"héllo ✓"}}',
  '{"type":"content_block_stop","index":0}',
  '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}',
  '{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":3}}',
];
const SSE = EVENTS.map((e) => `event: ${JSON.parse(e).type}\ndata: ${e}\n\n`).join('');

describe('Bedrock event stream → Messages SSE', () => {
  it('turns chunk events into SSE frames, payload bytes untouched', async () => {
    expect(await convert(EVENTS.map(chunkMessage))).toBe(SSE);
  });

  it('reassembles messages cut anywhere, even one byte at a time, and several in one read', async () => {
    const all = Buffer.concat(EVENTS.map((e) => Buffer.from(chunkMessage(e))));
    const bytes = [...all].map((b) => Uint8Array.of(b));
    expect(await convert(bytes)).toBe(SSE);
    expect(await convert([all])).toBe(SSE);
    expect(await convert([all.subarray(0, 7), all.subarray(7, 300), all.subarray(300)])).toBe(SSE);
  });

  it('maps exceptions to the Anthropic error event and ends the stream there', async () => {
    const cases: [string, string][] = [
      ['throttlingException', 'rate_limit_error'],
      ['serviceUnavailableException', 'overloaded_error'],
      ['modelStreamErrorException', 'api_error'],
      ['validationException', 'invalid_request_error'],
      ['internalServerException', 'api_error'],
      ['modelTimeoutException', 'timeout_error'],
      ['somethingNewException', 'api_error'],
    ];
    for (const [exception, type] of cases) {
      const text = await convert([chunkMessage(EVENTS[0]!), exceptionMessage(exception, 'it broke'), chunkMessage(EVENTS[1]!)]);
      const frames = text.split('\n\n').filter(Boolean);
      expect(frames).toHaveLength(2);
      expect(frames[1]).toBe(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message: 'it broke' } })}`);
    }
  });

  it("an unmodelled `error` message (:error-code, :error-message) becomes an api_error event", async () => {
    const str = (value: string) => ({ type: 'string' as const, value });
    const err = codec.encode({ headers: { ':message-type': str('error'), ':error-code': str('InternalFailure'), ':error-message': str('boom') }, body: new Uint8Array(0) });
    const text = await convert([chunkMessage(EVENTS[0]!), err]);
    expect(text.split('\n\n').filter(Boolean).at(-1)).toBe(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'boom' } })}`);
  });

  it('a corrupted message (CRC) becomes an api_error event rather than garbage', async () => {
    const bad = Buffer.from(chunkMessage(EVENTS[1]!));
    bad[bad.length - 10] ^= 0xff;
    const text = await convert([chunkMessage(EVENTS[0]!), bad]);
    expect(text).toMatch(/event: error\ndata: .*"api_error".*malformed event stream/);
  });

  it('ignores events that are not chunks and chunks without a type', async () => {
    const other = codec.encode({ headers: { ':message-type': { type: 'string', value: 'event' }, ':event-type': { type: 'string', value: 'initial-response' } }, body: Buffer.from('{}') });
    expect(await convert([other, chunkMessage('{"no_type":1}'), chunkMessage(EVENTS[3]!)])).toBe(`event: content_block_stop\ndata: ${EVENTS[3]}\n\n`);
  });

  it('an upstream failure reaches the reader as an error', async () => {
    const body = new Readable({ read() {} });
    const out = bedrockStreamBody(body, await loadEventStreamCodec());
    body.push(Buffer.from(chunkMessage(EVENTS[0]!)));
    setTimeout(() => body.destroy(new Error('socket reset')), 10);
    const err = await (async () => {
      for await (const _ of out) void _;
    })().catch((e: unknown) => e);
    expect(String(err)).toMatch(/socket reset/);
  });

  it('an 8 MiB message in 4 KiB chunks is joined once: bytes copied stay linear in its size', async () => {
    // ~6 MiB of text → ~8 MiB of base64 in one chunk event.
    const text = 'x'.repeat(6 * 1024 * 1024);
    const event = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}`;
    const message = Buffer.from(chunkMessage(event));
    expect(message.length).toBeGreaterThan(8 * 1024 * 1024);
    const conv = new EventStreamToSse(await loadEventStreamCodec());
    const concat = vi.spyOn(Buffer, 'concat');
    let out = '';
    try {
      for (let at = 0; at < message.length; at += 4096) out += conv.feed(message.subarray(at, Math.min(at + 4096, message.length)));
      const copied = concat.mock.results.reduce((n, r) => n + (r.value as Buffer).length, 0);
      // The whole message once (plus a few bytes of a cut prelude); re-joining on every chunk would be
      // ~2,000 × 4 MiB on average, about 8 GiB.
      expect(copied).toBeLessThanOrEqual(message.length + 16);
      expect(concat.mock.calls.length).toBeLessThanOrEqual(2);
    } finally {
      concat.mockRestore();
    }
    expect(out).toBe(`event: content_block_delta\ndata: ${event}\n\n`);
    expect(conv.ended).toBe(false);
  });

  it('messages cut at every byte of their prelude are reassembled', async () => {
    const all = Buffer.concat(EVENTS.map((e) => Buffer.from(chunkMessage(e))));
    const second = Buffer.from(chunkMessage(EVENTS[0]!)).length;
    for (let cut = second - 2; cut <= second + 6; cut++) {
      expect(await convert([all.subarray(0, 1), all.subarray(1, cut), all.subarray(cut, cut + 1), all.subarray(cut + 1, cut + 3), all.subarray(cut + 3)])).toBe(SSE);
    }
  });
});
