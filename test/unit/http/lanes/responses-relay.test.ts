// The Responses pass-through relay as a pure function of the frames: model echo, usage tap, and the
// closing frames of a stream cut short (Codex needs a terminal event that lists what did finish).
import { describe, expect, it } from 'vitest';
import { createResponsesEventDecoder } from '../../../../src/drivers/openai-responses/decode-events.js';
import { responsesDriver } from '../../../../src/drivers/openai-responses/index.js';
import { GatewayError } from '../../../../src/errors.js';
import { ResponsesRelay } from '../../../../src/http/lanes/responses-relay.js';
import type { IrEvent, IrRequest } from '../../../../src/ir/types.js';
import { RequestRecord } from '../../../../src/observability/request-record.js';

const frame = (event: string, obj: unknown) => ({ event, data: JSON.stringify(obj) });
const dataOf = (text: string, event: string) => {
  const m = text.split('\n\n').find((f) => f.startsWith(`event: ${event}\n`));
  return m ? JSON.parse(m.slice(m.indexOf('data: ') + 6)) : undefined;
};

describe('ResponsesRelay', () => {
  it('echoes the caller model in lifecycle frames and closes a cut stream with the finished items', () => {
    const rec = new RequestRecord('req_1', 'responses', 0);
    const relay = new ResponsesRelay(rec, 'alias', true, responsesDriver.decodeStreamError);
    const created = relay.frame(frame('response.created', { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', model: 'up-model', status: 'in_progress', output: [] } }));
    expect(dataOf(created, 'response.created').response.model).toBe('alias');
    const item = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done part', annotations: [] }] };
    relay.frame(frame('response.output_item.done', { type: 'response.output_item.done', sequence_number: 1, output_index: 0, item }));
    const delta = relay.frame(frame('response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 2, item_id: 'msg_2', output_index: 1, content_index: 0, delta: 'par' }));
    expect(delta).toContain('"delta":"par"');
    expect(rec.tFirstToken).toBeGreaterThan(0);
    expect(relay.finished).toBe(false);

    const closing = relay.closingFrames(new GatewayError('api_error', 'upstream reset'));
    expect(relay.finished).toBe(true);
    const err = dataOf(closing, 'error');
    expect(err).toMatchObject({ type: 'error', sequence_number: 3, code: 'server_error', message: 'upstream reset' });
    const failed = dataOf(closing, 'response.failed');
    expect(failed.sequence_number).toBe(4);
    expect(failed.response).toMatchObject({ id: 'resp_1', model: 'alias', status: 'failed', error: { code: 'server_error' }, usage: null });
    expect(failed.response.output).toEqual([item]);
  });

  it('reads usage and the finish from the terminal frame', () => {
    const rec = new RequestRecord('req_2', 'responses', 0);
    const relay = new ResponsesRelay(rec, 'alias', false, responsesDriver.decodeStreamError);
    relay.frame(frame('response.completed', { type: 'response.completed', sequence_number: 9, response: { id: 'r', model: 'm', status: 'completed', output: [], usage: { input_tokens: 12, output_tokens: 5, total_tokens: 17, input_tokens_details: { cached_tokens: 2 }, output_tokens_details: { reasoning_tokens: 1 } } } }));
    expect(relay.finished).toBe(true);
    expect(rec.finishReason).toBe('completed');
    expect(rec.usage).toMatchObject({ inputTokens: 12, outputTokens: 5, cacheReadTokens: 2, reasoningTokens: 1 });
  });

  it.each([
    ['response.failed', { type: 'response.failed', sequence_number: 0, response: { id: 'r', status: 'failed', error: { code: 'invalid_prompt', message: 'flagged' } } }, 'invalid_request'],
    ['response.failed', { type: 'response.failed', sequence_number: 0, response: { id: 'r', status: 'failed', error: { code: 'server_error', message: 'oops' } } }, 'api_error'],
    ['response.failed', { type: 'response.failed', sequence_number: 0, response: { id: 'r', status: 'failed', error: { code: 'rate_limit_exceeded', message: 'slow' } } }, 'rate_limit'],
    ['error', { type: 'error', sequence_number: 0, code: 'context_length_exceeded', message: 'too long', param: null }, 'context_overflow'],
    ['error', { type: 'error', sequence_number: 0, error: { type: 'invalid_request_error', code: 'invalid_image', message: 'bad image' } }, 'invalid_request'],
    ['error', { type: 'error', sequence_number: 0, code: 'server_is_overloaded', message: 'busy' }, 'overloaded'],
  ])('classifies an early %s frame like the translation lane (%#)', (event, obj, kind) => {
    const f = frame(event, obj);
    const early = new ResponsesRelay(new RequestRecord('req_3', 'responses', 0), 'alias', false, responsesDriver.decodeStreamError).earlyError(f);
    expect(early).toBeInstanceOf(GatewayError);
    expect(early!.kind).toBe(kind);
    const events: IrEvent[] = [];
    createResponsesEventDecoder({ tools: [] } as unknown as IrRequest, (ev) => events.push(ev)).frame(f);
    const decoded = events.find((e) => e.type === 'error');
    expect(decoded?.type === 'error' && decoded.error.kind).toBe(kind);
  });

  it('lets ordinary frames through untouched and unclassified', () => {
    const rec = new RequestRecord('req_4', 'responses', 0);
    const relay = new ResponsesRelay(rec, 'alias', true, responsesDriver.decodeStreamError);
    const data = '{"type":"response.output_text.delta","sequence_number":3,"delta":"x"}';
    expect(relay.earlyError({ event: 'response.output_text.delta', data })).toBeUndefined();
    expect(relay.frame({ event: 'response.output_text.delta', data })).toBe(`event: response.output_text.delta\ndata: ${data}\n\n`);
    expect(rec.errorKind).toBeUndefined();
  });

  it('a non-streamed answer: taps usage and the status, rewrites the model only when asked', () => {
    const rec = new RequestRecord('req_5', 'responses', 0);
    const text = '{"id":"r","model":"gpt-up","status":"completed","usage":{"input_tokens":4,"output_tokens":2,"total_tokens":6}}';
    expect(JSON.parse(new ResponsesRelay(rec, 'alias', true, responsesDriver.decodeStreamError).result(text, JSON.parse(text))).model).toBe('alias');
    expect(rec.finishReason).toBe('completed');
    expect(rec.usage).toMatchObject({ inputTokens: 4, outputTokens: 2 });
    expect(new ResponsesRelay(new RequestRecord('req_6', 'responses', 0), 'alias', false, responsesDriver.decodeStreamError).result(text, JSON.parse(text))).toBe(text);
  });
});
