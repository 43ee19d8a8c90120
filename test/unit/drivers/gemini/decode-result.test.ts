import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/errors.js';
import { geminiDriver } from '../../../../src/drivers/gemini/index.js';
import { fixtureJson, request } from './support.js';

describe('gemini decodeResult', () => {
  it('thought, a signed call and an unsigned call; usage with cached and thought tokens', () => {
    const result = geminiDriver.decodeResult(fixtureJson('result-thinking-calls.json'), request());
    expect(result).toEqual({
      id: 'rsp-res-12',
      model: 'gemini-2.5-flash',
      content: [
        { type: 'reasoning', text: 'I need the weather for Oslo.', carry: { family: 'google', signature: 'CiwBResultSig==', on: 'next' } },
        { type: 'tool-call', id: 'syg_rsp-res-12_0', name: 'get_weather', arguments: '{"city":"Oslo"}', kind: 'function' },
        { type: 'tool-call', id: 'syg_rsp-res-12_1', name: 'get_time', arguments: '{"tz":"Europe/Oslo"}', kind: 'function' },
      ],
      finish: { reason: 'tool_use', raw: 'STOP' },
      usage: { inputTokens: 120, cacheReadTokens: 100, cacheWriteTokens: 0, outputTokens: 86, reasoningTokens: 64 },
    });
  });

  it('a blocked prompt throws invalid_request', () => {
    const err = (() => {
      try {
        geminiDriver.decodeResult(fixtureJson('result-prompt-blocked.json'), request());
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).kind).toBe('invalid_request');
    expect((err as GatewayError).message).toBe('Gemini blocked the prompt (SAFETY)');
  });

  it('RECITATION keeps the text and is a refusal', () => {
    const result = geminiDriver.decodeResult(fixtureJson('result-recitation.json'), request());
    expect(result.content).toEqual([{ type: 'text', text: 'Four score and' }]);
    expect(result.finish).toEqual({ reason: 'refusal', raw: 'RECITATION' });
  });

  it('a body that is not an object, or has no finishReason, is an api_error', () => {
    expect(() => geminiDriver.decodeResult([], request())).toThrow(/malformed/);
    expect(() => geminiDriver.decodeResult({ candidates: [{ content: { parts: [{ text: 'x' }] } }] }, request())).toThrow(/before a finishReason/);
  });

  it('every finishReason maps (gemini.md §9)', () => {
    const finish = (raw: string, calls = false) => {
      const parts = calls ? [{ functionCall: { name: 'f', args: {} } }] : [{ text: 'x' }];
      try {
        return geminiDriver.decodeResult({ candidates: [{ content: { parts }, finishReason: raw }] }, request()).finish.reason;
      } catch (e) {
        return `error:${(e as GatewayError).kind}`;
      }
    };
    const table: Record<string, string> = {
      STOP: 'end_turn', MAX_TOKENS: 'max_tokens', CONTINUATION: 'max_tokens', SAFETY: 'refusal', RECITATION: 'refusal', LANGUAGE: 'refusal',
      BLOCKLIST: 'refusal', PROHIBITED_CONTENT: 'refusal', SPII: 'refusal', IMAGE_SAFETY: 'refusal', IMAGE_PROHIBITED_CONTENT: 'refusal',
      IMAGE_RECITATION: 'refusal', MALFORMED_FUNCTION_CALL: 'error:api_error', UNEXPECTED_TOOL_CALL: 'error:api_error',
      TOO_MANY_TOOL_CALLS: 'other', OTHER: 'other', NO_IMAGE: 'other', IMAGE_OTHER: 'other', FINISH_REASON_UNSPECIFIED: 'other', SOMETHING_NEW: 'other',
    };
    for (const [raw, reason] of Object.entries(table)) expect(finish(raw), raw).toBe(reason);
    expect(finish('STOP', true)).toBe('tool_use');
    expect(finish('TOO_MANY_TOOL_CALLS', true)).toBe('tool_use');
  });
});
