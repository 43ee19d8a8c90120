// The Messages pass-through relay as a pure function of the frames: model echo in message_start, the
// usage and stop-reason tap, and failure frames classified with the Messages driver's table (the same
// the translation lane uses), so both lanes retry and answer alike.
import { describe, expect, it } from 'vitest';
import { messagesCodec } from '../../../../src/codecs/anthropic-messages/index.js';
import { createMessagesEventDecoder } from '../../../../src/drivers/anthropic-messages/decode-events.js';
import { anthropicDriver } from '../../../../src/drivers/anthropic-messages/index.js';
import { GatewayError } from '../../../../src/errors.js';
import { MessagesRelay } from '../../../../src/http/lanes/messages-relay.js';
import type { IrEvent, IrRequest } from '../../../../src/ir/types.js';
import { RequestRecord } from '../../../../src/observability/request-record.js';

const frame = (event: string, obj: unknown) => ({ event, data: JSON.stringify(obj) });
const relayFor = (rec: RequestRecord, rewrite = true) => new MessagesRelay(rec, 'alias', rewrite, (err) => messagesCodec.encodeError(err, 'req_1').body, anthropicDriver.decodeStreamError);

/** The kind the translation lane's decoder gives the same frame. */
function decoderKind(f: { event: string; data: string }): string | undefined {
  const events: IrEvent[] = [];
  const decoder = createMessagesEventDecoder({ tools: [] } as unknown as IrRequest, (ev) => events.push(ev));
  decoder.frame(f);
  const err = events.find((e) => e.type === 'error');
  return err?.type === 'error' ? err.error.kind : undefined;
}

describe('MessagesRelay', () => {
  it('echoes the caller model in message_start and taps usage and the stop reason', () => {
    const rec = new RequestRecord('req_1', 'messages', 0);
    const relay = relayFor(rec);
    const start = relay.frame(frame('message_start', { type: 'message_start', message: { id: 'msg_1', model: 'claude-up', usage: { input_tokens: 7, output_tokens: 1 } } }));
    expect(start.startsWith('event: message_start\ndata: ')).toBe(true);
    expect(JSON.parse(start.split('data: ')[1]!).message.model).toBe('alias');
    const delta = relay.frame({ event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}' });
    // Frames that carry nothing for the tap go out byte for byte.
    expect(delta).toBe('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\n');
    expect(rec.tFirstToken).toBeGreaterThan(0);
    relay.frame(frame('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }));
    expect(relay.finished).toBe(false);
    relay.frame(frame('message_stop', { type: 'message_stop' }));
    expect(relay.finished).toBe(true);
    expect(rec.finishReason).toBe('end_turn');
    expect(rec.usage).toMatchObject({ inputTokens: 7, outputTokens: 9 });
  });

  it('leaves message_start untouched when the upstream model is the caller’s', () => {
    const relay = relayFor(new RequestRecord('req_1', 'messages', 0), false);
    const data = '{"type":"message_start","message":{"id":"msg_1","model":"claude-up"}}';
    expect(relay.frame({ event: 'message_start', data })).toBe(`event: message_start\ndata: ${data}\n\n`);
  });

  it.each([
    ['conflict_error', 'busy', 'conflict'],
    ['overloaded_error', 'Overloaded', 'overloaded'],
    ['invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum', 'context_overflow'],
    ['invalid_request_error', 'input length and `max_tokens` exceed context limit: 1 + 2 > 2', 'context_overflow'],
    ['invalid_request_error', 'messages: text content blocks must be non-empty', 'invalid_request'],
    ['authentication_error', 'invalid x-api-key', 'bad_gateway'],
    ['brand_new_error', 'something new', 'api_error'],
  ])('classifies an early %s frame like the translation lane', (type, message, kind) => {
    const f = frame('error', { type: 'error', error: { type, message } });
    const early = relayFor(new RequestRecord('req_1', 'messages', 0)).earlyError(f);
    expect(early).toBeInstanceOf(GatewayError);
    expect(early!.kind).toBe(kind);
    expect(early!.message).toBe(message);
    expect(decoderKind(f)).toBe(kind);
  });

  it('records an error frame mid-stream with the same kind, and ends the relay', () => {
    const rec = new RequestRecord('req_1', 'messages', 0);
    const relay = relayFor(rec);
    expect(relay.earlyError(frame('ping', { type: 'ping' }))).toBeUndefined();
    relay.frame(frame('error', { type: 'error', error: { type: 'conflict_error', message: 'busy' } }));
    expect(rec.errorKind).toBe('conflict');
    expect(relay.finished).toBe(true);
  });

  it('closes a cut stream with an error event in the caller’s envelope', () => {
    const relay = relayFor(new RequestRecord('req_1', 'messages', 0));
    const text = relay.closingFrames(new GatewayError('overloaded', 'upstream busy'));
    expect(text.startsWith('event: error\ndata: ')).toBe(true);
    expect(JSON.parse(text.slice(text.indexOf('data: ') + 6))).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'upstream busy' } });
    expect(relay.finished).toBe(true);
  });

  it('a non-streamed answer: taps usage and the stop reason, rewrites the model only when asked', () => {
    const rec = new RequestRecord('req_1', 'messages', 0);
    const text = '{"id":"msg_1","model":"claude-up","stop_reason":"max_tokens","usage":{"input_tokens":3,"output_tokens":4}}';
    const out = relayFor(rec).result(text, JSON.parse(text));
    expect(JSON.parse(out).model).toBe('alias');
    expect(rec.finishReason).toBe('max_tokens');
    expect(rec.usage).toMatchObject({ inputTokens: 3, outputTokens: 4 });
    expect(relayFor(new RequestRecord('req_2', 'messages', 0), false).result(text, JSON.parse(text))).toBe(text);
  });
});
