// The Chat Completions door's codec as pure functions: the request it decodes (roles, parts, tools,
// legacy functions, limits, formats, reasoning_details), the fields it refuses or marks pass-through
// only, and the answer and stream it encodes (finish reasons, usage sums, one index per call, the
// separate usage chunk, the error frame).
import { describe, expect, it } from 'vitest';
import { chatCodec } from '../../../../src/codecs/openai-chat/index.js';
import type { EncodeContext } from '../../../../src/codecs/types.js';
import { GatewayError } from '../../../../src/errors.js';
import type { IrEvent, IrRequest, IrResult, Warning } from '../../../../src/ir/types.js';

const decode = (body: Record<string, unknown>, warnings: Warning[] = []): IrRequest => chatCodec.decodeRequest({ model: 'm', ...body }, warnings);
const refusal = (body: Record<string, unknown>): GatewayError => {
  try {
    decode(body);
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('not refused');
};
const ctx = (request: IrRequest): EncodeContext => ({ request, responseId: 'chatcmpl-1', createdAt: 1700000000, warnings: [] });

describe('decodeRequest', () => {
  it('joins system and developer messages into the system prompt, and tool results into the next user turn', () => {
    const ir = decode({
      messages: [
        { role: 'developer', content: 'Be terse.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } }] },
        { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'w', arguments: '{"c":"P"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [{ type: 'function', function: { name: 'w', parameters: { type: 'object', properties: {} }, strict: true } }],
      tool_choice: 'required',
      max_tokens: 50,
      max_completion_tokens: 40,
      stop: 'END',
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } },
    });
    expect(ir.system).toEqual([{ type: 'text', text: 'Be terse.' }]);
    expect(ir.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(ir.turns[1]!.parts).toEqual([
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', id: 'call_1', name: 'w', arguments: '{"c":"P"}', kind: 'function' },
    ]);
    expect(ir.turns[2]!.parts).toEqual([
      { type: 'tool-result', callId: 'call_1', content: [{ type: 'text', text: 'sunny' }], isError: false, kind: 'function' },
      { type: 'text', text: 'Thanks' },
    ]);
    expect(ir.turns[0]!.parts[1]).toMatchObject({ type: 'image', source: { kind: 'base64', mediaType: 'image/png' }, detail: 'low' });
    expect(ir.tools[0]).toMatchObject({ name: 'w', strict: true });
    expect(ir.toolChoice).toEqual({ type: 'required' });
    expect(ir.maxOutputTokens).toBe(40);
    expect(ir.stopSequences).toEqual(['END']);
    expect(ir.reasoning).toEqual({ effort: 'low' });
    expect(ir.outputFormat).toEqual({ type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true });
  });

  it('maps the legacy functions / function_call / function messages to tools and calls', () => {
    const ir = decode({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
        { role: 'function', name: 'f', content: 'done' },
      ],
      functions: [{ name: 'f', parameters: { type: 'object', properties: {} } }],
      function_call: { name: 'f' },
    });
    expect(ir.tools.map((t) => t.name)).toEqual(['f']);
    expect(ir.toolChoice).toEqual({ type: 'tool', name: 'f' });
    const call = ir.turns[1]!.parts[0] as { id: string };
    expect(ir.turns[2]!.parts[0]).toMatchObject({ type: 'tool-result', callId: call.id });
  });

  it('restores reasoning_details byte for byte, each unit before the call it preceded', () => {
    const ir = decode({
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: 'Let me look.',
          reasoning_content: 'ignored when details are given',
          reasoning_details: [
            { type: 'reasoning.text', text: 'think', signature: 'sig/A+==', format: 'google-gemini-v1', index: 0 },
            { type: 'reasoning.encrypted', data: 'sig-B', format: 'google-gemini-v1', index: 1, tool_call_id: 'c1' },
            { type: 'reasoning.summary', summary: 'x', format: 'someone-else-v9', index: 2 },
          ],
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
    });
    expect(ir.turns[1]!.parts).toEqual([
      { type: 'reasoning', text: 'think', carry: { family: 'google', signature: 'sig/A+==', on: 'thought' } },
      { type: 'text', text: 'Let me look.' },
      { type: 'reasoning', text: '', carry: { family: 'google', signature: 'sig-B', on: 'next' } },
      { type: 'tool-call', id: 'c1', name: 'w', arguments: '{}', kind: 'function' },
    ]);
  });

  it('keeps reasoning_content as text when no details are given', () => {
    const ir = decode({ messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b', reasoning_content: 'because' }, { role: 'user', content: 'c' }] });
    expect(ir.turns[1]!.parts[0]).toEqual({ type: 'reasoning', text: 'because' });
  });

  it('marks what only a Chat upstream can honour, and reports what a translation drops', () => {
    expect(decode({ messages: [{ role: 'user', content: 'hi' }], n: 2 }).passthroughOnly?.param).toBe('n');
    expect(decode({ messages: [{ role: 'user', content: 'hi' }], n: 1 }).passthroughOnly).toBeUndefined();
    const audio = decode({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } }] }] });
    expect(audio.passthroughOnly?.param).toBe('messages[0].content[0]');
    const warnings: Warning[] = [];
    // seed and the penalties are carried in the IR (the upstream's driver drops them where it has none).
    const carried = decode({ messages: [{ role: 'user', content: 'hi' }], seed: 1, frequency_penalty: 0.5, logit_bias: { '1': 2 }, vendor_thing: true, store: null }, warnings);
    expect(carried).toMatchObject({ seed: 1, frequencyPenalty: 0.5 });
    expect(warnings.map((w) => w.field)).toEqual(['logit_bias', 'other']);
  });

  it('refuses a tool message that answers nothing, an unanswered call, and a tool_choice naming no tool', () => {
    expect(refusal({ messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'x', content: 'ok' }] }).param).toBe('messages[1].tool_call_id');
    const open = refusal({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: { name: 'w', arguments: '{}' } }] }] });
    expect(open.param).toBe('messages[1].tool_calls');
    expect(open.message).toContain('a');
    expect(refusal({ messages: [{ role: 'user', content: 'hi' }], tool_choice: { type: 'function', function: { name: 'nope' } } }).param).toBe('tool_choice');
    expect(refusal({ messages: [{ role: 'wizard', content: 'hi' }] }).param).toBe('messages[0].role');
  });
});

const RESULT: IrResult = {
  id: 'up',
  model: 'upstream-model',
  content: [
    { type: 'reasoning', text: 'hmm', carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'hmm', signature: 'SIG' } } },
    { type: 'text', text: 'Calling.' },
    { type: 'tool-call', id: 'toolu_1', name: 'w', arguments: '{"c":1}', kind: 'function' },
  ],
  finish: { reason: 'end_turn', raw: 'end_turn' },
  usage: { inputTokens: 10, cacheReadTokens: 4, cacheWriteTokens: 0, outputTokens: 7, reasoningTokens: 3 },
};

describe('encodeResult', () => {
  it('answers chat.completion with the caller model, calls, reasoning, tool_calls finish and summed usage', () => {
    const body = JSON.parse(chatCodec.encodeResult(RESULT, ctx(decode({ messages: [{ role: 'user', content: 'hi' }] }))));
    expect(body).toMatchObject({ id: 'chatcmpl-1', object: 'chat.completion', created: 1700000000, model: 'm' });
    const choice = body.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message).toEqual({
      role: 'assistant',
      content: 'Calling.',
      refusal: null,
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'w', arguments: '{"c":1}' } }],
      reasoning_content: 'hmm',
      reasoning_details: [{ type: 'reasoning.text', text: 'hmm', signature: 'SIG', format: 'anthropic-claude-v1', index: 0 }],
    });
    expect(body.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 7,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 3 },
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['other', 'stop'],
    ['max_tokens', 'length'],
    ['context_overflow', 'length'],
    ['refusal', 'content_filter'],
  ] as const)('finish %s → %s', (reason, expected) => {
    const body = JSON.parse(chatCodec.encodeResult({ ...RESULT, content: [{ type: 'text', text: 'x' }], finish: { reason, raw: null } }, ctx(decode({ messages: [{ role: 'user', content: 'hi' }] }))));
    expect(body.choices[0].finish_reason).toBe(expected);
  });
});

function streamOf(events: IrEvent[], body: Record<string, unknown> = {}): string[] {
  const frames: string[] = [];
  const enc = chatCodec.createStreamEncoder(ctx(decode({ messages: [{ role: 'user', content: 'hi' }], stream: true, ...body })), (f) => frames.push(f));
  for (const ev of events) enc.event(ev);
  return frames;
}

describe('createStreamEncoder', () => {
  const calls: IrEvent[] = [
    { type: 'response-start', id: 'up', model: 'x' },
    { type: 'tool-call-start', block: 0, id: 'a', name: 'w', kind: 'function' },
    { type: 'tool-call-delta', block: 0, argumentsDelta: '{"c":' },
    { type: 'tool-call-delta', block: 0, argumentsDelta: '1}' },
    { type: 'tool-call-end', block: 0 },
    { type: 'tool-call-start', block: 1, id: 'b', name: 'w', kind: 'function' },
    { type: 'tool-call-end', block: 1, arguments: '{"c":2}' },
    { type: 'usage', usage: RESULT.usage },
    { type: 'finish', finish: { reason: 'tool_use', raw: null } },
  ];

  it('role first, each call on its own index with id and name first, the finish chunk, the usage chunk, [DONE]', () => {
    const frames = streamOf(calls, { stream_options: { include_usage: true } });
    expect(frames.every((f) => f.startsWith('data: ') && f.endsWith('\n\n'))).toBe(true);
    expect(frames[frames.length - 1]).toBe('data: [DONE]\n\n');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice(6)));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const deltas = chunks.slice(1, -2).map((c) => c.choices[0].delta.tool_calls[0]);
    expect(deltas).toEqual([
      { index: 0, id: 'a', type: 'function', function: { name: 'w', arguments: '' } },
      { index: 0, function: { arguments: '{"c":' } },
      { index: 0, function: { arguments: '1}' } },
      { index: 1, id: 'b', type: 'function', function: { name: 'w', arguments: '' } },
      { index: 1, function: { arguments: '{"c":2}' } },
    ]);
    expect(chunks[chunks.length - 2].choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    expect(chunks[chunks.length - 2].usage).toBeNull();
    expect(chunks[chunks.length - 1]).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 } });
  });

  it('no usage chunk unless asked; an error is one data frame and nothing after it', () => {
    expect(streamOf(calls).some((f) => f.includes('"choices":[]'))).toBe(false);
    const failed = streamOf([
      { type: 'response-start', id: 'up', model: 'x' },
      { type: 'text-delta', block: 0, text: 'par' },
      { type: 'error', error: { kind: 'overloaded', message: 'busy' } },
      { type: 'text-delta', block: 0, text: 'tial' },
    ]);
    expect(JSON.parse(failed[failed.length - 1]!.slice(6))).toEqual({ error: { message: 'busy', type: 'server_error', param: null, code: 'server_is_overloaded' } });
    expect(failed.join('')).not.toContain('[DONE]');
    expect(failed.join('')).not.toContain('tial');
  });

  it('a reasoning unit after the text rides on the first delta of the call it precedes', () => {
    const frames = streamOf([
      { type: 'response-start', id: 'up', model: 'x' },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Looking.' },
      { type: 'text-end', block: 0 },
      { type: 'reasoning-start', block: 1 },
      { type: 'reasoning-end', block: 1, carry: { family: 'google', signature: 'S1', on: 'next' } },
      { type: 'tool-call-start', block: 2, id: 'c', name: 'w', kind: 'function' },
      { type: 'tool-call-end', block: 2, arguments: '{}' },
      { type: 'finish', finish: { reason: 'tool_use', raw: null } },
    ]);
    const first = frames.map((f) => f.slice(6)).filter((d) => d.includes('"id":"c"'))[0]!;
    expect(JSON.parse(first).choices[0].delta.reasoning_details).toEqual([
      { type: 'reasoning.encrypted', data: 'S1', format: 'google-gemini-v1', index: 0, tool_call_id: 'c' },
    ]);
  });
});
