import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { messagesCodec } from '../../../../src/codecs/anthropic-messages/index.js';
import { decodeEnvelope } from '../../../../src/ir/reasoning-envelope.js';
import type { IrResult, OutputPart, Usage } from '../../../../src/ir/types.js';
import { MessageResponse } from '../../../../src/protocols/anthropic-messages/response.js';
import { encodeContext } from './stream-support.js';

const responseCheck = TypeCompiler.Compile(MessageResponse);
const usage = (u: Partial<Usage> = {}): Usage => ({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, ...u });

function encode(content: OutputPart[], extra: Partial<IrResult> = {}, ctx = encodeContext('claude-opus-4-5', 'msg_gw')) {
  const result: IrResult = { id: 'resp_up', model: 'gpt-5.1', content, finish: { reason: 'end_turn', raw: 'completed' }, usage: usage(), ...extra };
  const body = JSON.parse(messagesCodec.encodeResult(result, ctx));
  expect(responseCheck.Check(body), JSON.stringify([...responseCheck.Errors(body)].slice(0, 3))).toBe(true);
  return body;
}

describe('messages encodeResult', () => {
  it('renders the §9 message: caller model, gateway id, blocks in order, usage split', () => {
    const body = encode(
      [
        {
          type: 'reasoning',
          text: 'The user wants Paris weather; call the tool.',
          carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'The user wants Paris weather; call the tool.', signature: 'EqoBCkgIBhABGAIiQ…' } },
        },
        { type: 'text', text: 'Let me check the current weather in Paris.' },
        { type: 'tool-call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}', kind: 'function' },
      ],
      { finish: { reason: 'tool_use', raw: 'tool_use' }, usage: usage({ inputTokens: 2560, cacheReadTokens: 2048, outputTokens: 96 }) },
    );
    expect(body).toStrictEqual({
      id: 'msg_gw',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-5',
      content: [
        { type: 'thinking', thinking: 'The user wants Paris weather; call the tool.', signature: 'EqoBCkgIBhABGAIiQ…' },
        { type: 'text', text: 'Let me check the current weather in Paris.' },
        { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 512, cache_creation_input_tokens: 0, cache_read_input_tokens: 2048, output_tokens: 96 },
    });
  });

  it('reports cache writes, clamps input at zero, and adds thinking tokens only when there are some', () => {
    expect(encode([], { usage: usage({ inputTokens: 100, cacheReadTokens: 30, cacheWriteTokens: 50, outputTokens: 9, reasoningTokens: 4 }) }).usage).toStrictEqual({
      input_tokens: 20,
      cache_creation_input_tokens: 50,
      cache_read_input_tokens: 30,
      output_tokens: 9,
      output_tokens_details: { thinking_tokens: 4 },
    });
    expect(encode([], { usage: usage({ inputTokens: 10, cacheReadTokens: 30 }) }).usage.input_tokens).toBe(0);
  });

  it.each([
    ['end_turn', 'end_turn'],
    ['max_tokens', 'max_tokens'],
    ['tool_use', 'tool_use'],
    ['pause_turn', 'pause_turn'],
    ['refusal', 'refusal'],
    ['context_overflow', 'model_context_window_exceeded'],
    ['other', 'end_turn'],
  ] as const)('finish %s → stop_reason %s, stop_sequence null', (reason, stop) => {
    const body = encode([], { finish: { reason, raw: 'x', stopSequence: 'ignored' } });
    expect(body.stop_reason).toBe(stop);
    expect(body.stop_sequence).toBeNull();
  });

  it('reports the matched stop sequence', () => {
    const body = encode([{ type: 'text', text: 'a' }], { finish: { reason: 'stop_sequence', raw: 'stop_sequence', stopSequence: '</x>' } });
    expect([body.stop_reason, body.stop_sequence]).toEqual(['stop_sequence', '</x>']);
  });

  it('keeps refusal text as a text block and leaves empty text out', () => {
    const body = encode([{ type: 'text', text: '' }, { type: 'text', text: "I can't help with that.", refusal: true }], { finish: { reason: 'refusal', raw: 'content_filter' } });
    expect(body.content).toStrictEqual([{ type: 'text', text: "I can't help with that." }]);
  });

  it('carries foreign reasoning in the envelope: thinking when it has text, redacted_thinking when not', () => {
    const openai = { family: 'openai' as const, id: 'rs_1', encryptedContent: 'gAAAA', summary: [{ type: 'summary_text' as const, text: 'sum' }] };
    const body = encode([
      { type: 'reasoning', text: 'sum', carry: openai },
      { type: 'reasoning', text: '', carry: openai },
      { type: 'reasoning', text: 'raw chat reasoning' },
      { type: 'reasoning', text: '' },
      { type: 'reasoning', text: '', carry: { family: 'anthropic', block: { type: 'redacted_thinking', data: 'EmwKAhgB' } } },
    ]);
    expect(body.content.map((b: { type: string }) => b.type)).toEqual(['thinking', 'redacted_thinking', 'thinking', 'redacted_thinking']);
    expect(body.content[0].thinking).toBe('sum');
    expect(decodeEnvelope(body.content[0].signature)).toEqual(openai);
    expect(decodeEnvelope(body.content[1].data)).toEqual(openai);
    expect(decodeEnvelope(body.content[2].signature)).toEqual({ family: 'chat', text: 'raw chat reasoning' });
    expect(body.content[3]).toStrictEqual({ type: 'redacted_thinking', data: 'EmwKAhgB' });
  });

  it('turns tool arguments into an input object whatever the upstream sent', () => {
    const call = (args: string, kind: 'function' | 'custom' = 'function'): OutputPart => ({ type: 'tool-call', id: 'toolu_x', name: 't', arguments: args, kind });
    const body = encode([call(''), call('[1]'), call('{"a":"b","c":[1,'), call('garbage'), call('*** Begin Patch', 'custom')]);
    expect(body.content.map((b: { input: unknown }) => b.input)).toEqual([{}, { value: [1] }, { a: 'b', c: [1] }, {}, { input: '*** Begin Patch' }]);
  });
});
