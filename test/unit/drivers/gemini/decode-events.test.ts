import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import type { IrEvent } from '../../../../src/ir/types.js';
import { decodeChunks, expectWellFormed, fixture, request } from './support.js';

const FIXTURES = [
  'text.sse', 'thinking-parallel-calls.sse', 'signed-text.sse', 'signed-thought.sse', 'safety.sse', 'prompt-blocked.sse',
  'malformed-function-call.sse', 'stream-error.sse', 'truncated.sse', 'call-ids.sse', 'recitation-max-tokens.sse',
];

const decodeFixture = (name: string): IrEvent[] => decodeChunks(request(), [fixture(name)]);
const usage = (inputTokens: number, cacheReadTokens: number, outputTokens: number, reasoningTokens: number) => ({
  type: 'usage' as const,
  usage: { inputTokens, cacheReadTokens, cacheWriteTokens: 0, outputTokens, reasoningTokens },
});

describe('gemini event decoder on the fixtures', () => {
  it('usage: each chunk’s counts replace the last ones whole (a later chunk without cached tokens has none)', () => {
    const frame = (text: string, usageMetadata: object, finishReason?: string) =>
      'data: ' + JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finishReason ? { finishReason } : {}) }], usageMetadata, responseId: 'r', modelVersion: 'gemini-x' }) + '\r\n\r\n';
    const events = decodeChunks(request(), [
      frame('a', { promptTokenCount: 30, cachedContentTokenCount: 16, candidatesTokenCount: 1, thoughtsTokenCount: 5, totalTokenCount: 36 }),
      frame('b', { promptTokenCount: 30, candidatesTokenCount: 2, totalTokenCount: 32 }, 'STOP'),
    ]);
    expect(events.filter((e) => e.type === 'usage')).toEqual([usage(30, 0, 2, 0)]);
  });

  it('text: one text block, usage and STOP from the last frame', () => {
    expect(decodeFixture('text.sse')).toEqual([
      { type: 'response-start', id: 'rsp-text-1', model: 'gemini-3-pro-preview' },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Hello' },
      { type: 'text-delta', block: 0, text: ' there, ' },
      { type: 'text-delta', block: 0, text: 'friend!' },
      { type: 'text-end', block: 0 },
      usage(21, 0, 4, 0),
      { type: 'finish', finish: { reason: 'end_turn', raw: 'STOP' } },
    ]);
  });

  it('thoughts and two id-less calls: the signature of the first call closes the reasoning block; ids synthesized', () => {
    expect(decodeFixture('thinking-parallel-calls.sse')).toEqual([
      { type: 'response-start', id: 'rsp-calls-2', model: 'gemini-3-pro-preview' },
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-delta', block: 0, text: '**Checking both cities**\n\nThe user wants ' },
      { type: 'reasoning-delta', block: 0, text: 'Paris and Rome.' },
      { type: 'reasoning-end', block: 0, carry: { family: 'google', signature: 'CiQBjz1rX2sigParis/+==', on: 'next' } },
      { type: 'tool-call-start', block: 1, id: 'syg_rsp-calls-2_0', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"city":"Paris"}' },
      { type: 'tool-call-end', block: 1, arguments: '{"city":"Paris"}' },
      { type: 'tool-call-start', block: 2, id: 'syg_rsp-calls-2_1', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 2, argumentsDelta: '{"city":"Rome"}' },
      { type: 'tool-call-end', block: 2, arguments: '{"city":"Rome"}' },
      usage(40, 0, 70, 52),
      { type: 'finish', finish: { reason: 'tool_use', raw: 'STOP' } },
    ]);
  });

  it('a signature on a closing empty text part becomes an empty reasoning block after the text', () => {
    const folded = foldEvents(decodeFixture('signed-text.sse'));
    expect(folded.content).toEqual([
      { type: 'text', text: 'The answer is 42.' },
      { type: 'reasoning', text: '', carry: { family: 'google', signature: 'EsgBCsUBAXLI2nxTextSig==', on: 'next' } },
    ]);
    expect(folded.usage).toEqual({ inputTokens: 21, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 35, reasoningTokens: 30 });
  });

  it('a signed thought part is its own block, so it can go back exactly', () => {
    const folded = foldEvents(decodeFixture('signed-thought.sse'));
    expect(folded.content).toEqual([
      { type: 'reasoning', text: 'Let me think ', carry: { family: 'google', signature: null, on: 'thought' } },
      { type: 'reasoning', text: 'about it.', carry: { family: 'google', signature: 'Cv0BThoughtSig/2.5==', on: 'thought' } },
      { type: 'text', text: 'Done thinking.' },
    ]);
    expect(folded.usage.cacheReadTokens).toBe(16);
  });

  it('SAFETY after text is a refusal finish that keeps the text', () => {
    const folded = foldEvents(decodeFixture('safety.sse'));
    expect(folded.content).toEqual([{ type: 'text', text: 'Here is how' }]);
    expect(folded.finish).toEqual({ reason: 'refusal', raw: 'SAFETY' });
  });

  it('a blocked prompt is an invalid_request error naming the reason, before any output', () => {
    expect(decodeFixture('prompt-blocked.sse')).toEqual([{ type: 'error', error: { kind: 'invalid_request', message: 'Gemini blocked the prompt (PROHIBITED_CONTENT)' } }]);
  });

  it('MALFORMED_FUNCTION_CALL is a retryable failure carrying the finishMessage', () => {
    const events = decodeFixture('malformed-function-call.sse');
    expect(events[events.length - 1]).toEqual({
      type: 'error',
      error: { kind: 'api_error', message: 'Gemini ended the generation with MALFORMED_FUNCTION_CALL: Malformed function call: print(default_api.get_weather(city=Paris))' },
    });
  });

  it('an error frame mid-stream ends the stream with its kind', () => {
    const events = decodeFixture('stream-error.sse');
    expect(events[events.length - 1]).toEqual({ type: 'error', error: { kind: 'overloaded', message: 'The model is overloaded. Please try again later.', status: 503 } });
  });

  it('an end before any finishReason is an error', () => {
    const events = decodeFixture('truncated.sse');
    expect(events[events.length - 1]).toEqual({ type: 'error', error: { kind: 'api_error', message: 'upstream stream ended before a finishReason' } });
  });

  it('upstream ids are kept; one shaped like ours is re-encoded so it is never mistaken for one', () => {
    const calls = foldEvents(decodeFixture('call-ids.sse')).content.filter((p) => p.type === 'tool-call');
    expect(calls.map((c) => (c.type === 'tool-call' ? c.id : ''))).toEqual(['ab12cd34', 'syc_' + Buffer.from('syg_not_ours').toString('base64url')]);
  });

  it('text and MAX_TOKENS in one frame', () => {
    const folded = foldEvents(decodeFixture('recitation-max-tokens.sse'));
    expect(folded.finish).toEqual({ reason: 'max_tokens', raw: 'MAX_TOKENS' });
    expect(folded.content).toEqual([{ type: 'text', text: 'To be, or not' }]);
  });

  it('custom tools come back as their raw input; namespaced names map back', () => {
    const req = request({
      tools: [
        { name: 'apply_patch', kind: 'custom' },
        { name: 'spawn', namespace: 'agents', kind: 'function', inputSchema: { type: 'object' } },
      ],
    });
    const frame = (parts: unknown[], finish?: string) =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: finish } : {}) }], responseId: 'r' })}\r\n\r\n`;
    const folded = foldEvents(
      decodeChunks(req, [frame([{ functionCall: { name: 'apply_patch', args: { input: '*** Begin Patch' } } }, { functionCall: { name: 'agents__spawn', args: { task: 'x' } } }], 'STOP')]),
    );
    expect(folded.content).toEqual([
      { type: 'tool-call', id: 'syg_r_0', name: 'apply_patch', arguments: '*** Begin Patch', kind: 'custom' },
      { type: 'tool-call', id: 'syg_r_1', name: 'spawn', namespace: 'agents', arguments: '{"task":"x"}', kind: 'function' },
    ]);
  });

  for (const name of FIXTURES) {
    it(`${name}: well-formed, and identical events for the bytes split at every offset`, () => {
      const req = request();
      const bytes = fixture(name);
      const whole = decodeChunks(req, [bytes]);
      expectWellFormed(whole);
      for (let i = 1; i < bytes.length; i++) {
        const split = decodeChunks(req, [bytes.subarray(0, i), bytes.subarray(i)]);
        if (JSON.stringify(split) !== JSON.stringify(whole)) expect(split, `split at byte ${i}`).toEqual(whole);
      }
    });
  }
});
