import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resultItemIds } from '../../../../src/codecs/openai-responses/encode-result.js';
import { responsesCodec } from '../../../../src/codecs/openai-responses/index.js';
import { decodeEnvelope } from '../../../../src/ir/reasoning-envelope.js';
import type { IrRequest, IrResult, OutputPart, ReasoningCarry } from '../../../../src/ir/types.js';
import { CREATED_AT, NOW_MS, encodeContext, usage } from './stream-support.js';

beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW_MS);
});
afterAll(() => {
  vi.useRealTimers();
});

function result(content: OutputPart[], reason: IrResult['finish']['reason'] = 'end_turn', u = usage({ inputTokens: 19, outputTokens: 6 })): IrResult {
  return { id: 'upstream_id', model: 'claude-upstream-model', content, finish: { reason, raw: reason }, usage: u };
}

function encode(r: IrResult, over: Partial<IrRequest> = {}, responseId = 'resp_abc'): any {
  return JSON.parse(responsesCodec.encodeResult(r, encodeContext(over, responseId)));
}

describe('encodeResult: the full response object (responses.md §8)', () => {
  it('a text answer with every echoed field concrete, in the API’s key order', () => {
    const body = responsesCodec.encodeResult(result([{ type: 'text', text: 'Hello there!' }]), encodeContext({ model: 'gpt-5' }, 'resp_68b1'));
    const r = JSON.parse(body);
    expect(Object.keys(r)).toEqual([
      'id', 'object', 'created_at', 'status', 'background', 'completed_at', 'error', 'incomplete_details', 'instructions',
      'max_output_tokens', 'max_tool_calls', 'model', 'output', 'parallel_tool_calls', 'previous_response_id',
      'prompt_cache_key', 'reasoning', 'safety_identifier', 'service_tier', 'store', 'temperature', 'text', 'tool_choice',
      'tools', 'top_logprobs', 'top_p', 'truncation', 'usage', 'user', 'metadata', 'presence_penalty', 'frequency_penalty',
    ]);
    expect(r).toEqual({
      id: 'resp_68b1',
      object: 'response',
      created_at: CREATED_AT,
      status: 'completed',
      background: false,
      completed_at: NOW_MS / 1000,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      max_tool_calls: null,
      // The caller's own model name, not the upstream's.
      model: 'gpt-5',
      output: [
        {
          id: 'msg_68b1_0',
          type: 'message',
          status: 'completed',
          content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hello there!' }],
          role: 'assistant',
        },
      ],
      parallel_tool_calls: true,
      previous_response_id: null,
      prompt_cache_key: null,
      reasoning: null,
      safety_identifier: null,
      service_tier: 'default',
      store: true,
      temperature: 1,
      text: { format: { type: 'text' }, verbosity: 'medium' },
      tool_choice: 'auto',
      tools: [],
      top_logprobs: 0,
      top_p: 1,
      truncation: 'disabled',
      usage: { input_tokens: 19, input_tokens_details: { cached_tokens: 0 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 25 },
      user: null,
      metadata: {},
      presence_penalty: 0,
      frequency_penalty: 0,
    });
  });

  it('echoes the caller’s request as decoded (SDK request: instructions, sampling, metadata, json_schema)', () => {
    const sdk = JSON.parse(readFileSync(new URL('../../../fixtures/caller/openai-responses/sdk-request.json', import.meta.url), 'utf8'));
    const request = responsesCodec.decodeRequest(sdk, []);
    const r = JSON.parse(
      responsesCodec.encodeResult(result([{ type: 'text', text: '{"name":"Tom"}' }]), { request, responseId: 'resp_s', createdAt: CREATED_AT, warnings: [] }),
    );
    expect(r).toMatchObject({
      instructions: 'You are terse.',
      model: 'gpt-5-mini',
      max_output_tokens: 400,
      temperature: 0.2,
      top_p: 0.9,
      safety_identifier: 'user-7f3a',
      metadata: { team: 'search', ticket: 'T-42' },
      store: true,
      text: { format: sdk.text.format, verbosity: 'medium' },
    });
  });

  it('echoes a Codex request: store false, prompt_cache_key, verbosity, reasoning, tools with all keys', () => {
    const codex = JSON.parse(readFileSync(new URL('../../../fixtures/caller/openai-responses/codex-request.json', import.meta.url), 'utf8'));
    const request = responsesCodec.decodeRequest(codex, []);
    const r = JSON.parse(responsesCodec.encodeResult(result([{ type: 'text', text: 'ok' }]), { request, responseId: 'resp_c', createdAt: CREATED_AT, warnings: [] }));
    expect(r).toMatchObject({
      store: false,
      prompt_cache_key: '0199a1c2-0000-7000-8000-0000000000ff',
      reasoning: { effort: 'medium', summary: 'auto' },
      text: { format: { type: 'text' }, verbosity: 'low' },
      parallel_tool_calls: true,
      tool_choice: 'auto',
      instructions: null,
    });
    expect(r.tools.map((t: any) => [t.type, t.name])).toEqual([
      ['function', 'exec_command'],
      ['custom', 'apply_patch'],
      ['namespace', 'multi_agent_v1'],
    ]);
    expect(r.tools[2].tools[1]).toEqual({ type: 'function', name: 'wait_agent', description: null, parameters: null, strict: null });
    expect(r).not.toHaveProperty('client_metadata');
  });

  it('items in order with ids derived from the response id and output index; empty text makes no item', () => {
    const carry: ReasoningCarry = { family: 'anthropic', block: { type: 'thinking', thinking: 'Plan.', signature: 'sig' } };
    const r = encode(
      result(
        [
          { type: 'reasoning', text: 'Plan.', carry },
          { type: 'text', text: '' },
          { type: 'text', text: 'Calling.' },
          { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
          { type: 'tool-call', id: 'toolu_2', name: 'apply_patch', arguments: '*** Begin Patch', kind: 'custom', namespace: 'tools' },
          { type: 'tool-call', id: 'toolu_3', name: 'noop', arguments: '', kind: 'function' },
        ],
        'tool_use',
      ),
      { reasoning: { effort: 'high', summary: 'detailed' } },
      'resp_xyz',
    );
    expect(r.output.map((o: any) => o.id)).toEqual(['rs_xyz_0', 'msg_xyz_1', 'fc_xyz_2', 'ctc_xyz_3', 'fc_xyz_4']);
    // The same ids without rendering (what the Responses store claims), empty text parts left out too.
    expect(resultItemIds(result([{ type: 'text', text: '' }, { type: 'reasoning', text: 'Plan.', carry }, { type: 'text', text: '' }, { type: 'text', text: 'Calling.' }, { type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '{}', kind: 'function' }, { type: 'tool-call', id: 'toolu_2', name: 'p', arguments: 'x', kind: 'custom' }, { type: 'text', text: '' }]), 'resp_xyz')).toEqual([
      'rs_xyz_0',
      'msg_xyz_1',
      'fc_xyz_2',
      'ctc_xyz_3',
    ]);
    expect(r.output[0].summary).toEqual([{ type: 'summary_text', text: 'Plan.' }]);
    expect(decodeEnvelope(r.output[0].encrypted_content)).toEqual(carry);
    expect(r.output[2]).toEqual({ id: 'fc_xyz_2', type: 'function_call', status: 'completed', arguments: '{"city":"Paris"}', call_id: 'toolu_1', name: 'get_weather' });
    expect(r.output[3]).toEqual({
      id: 'ctc_xyz_3',
      type: 'custom_tool_call',
      status: 'completed',
      call_id: 'toolu_2',
      name: 'apply_patch',
      input: '*** Begin Patch',
      namespace: 'tools',
    });
    expect(r.output[4].arguments).toBe('{}');
    expect(r.status).toBe('completed');
  });

  it('summaries only when asked; an OpenAI carry keeps its parts', () => {
    const carry: ReasoningCarry = {
      family: 'openai',
      id: 'rs_up',
      encryptedContent: 'gAAAA',
      summary: [
        { type: 'summary_text', text: 'one' },
        { type: 'summary_text', text: 'two' },
      ],
    };
    const part: OutputPart = { type: 'reasoning', text: 'one\n\ntwo', carry };
    expect(encode(result([part]), { reasoning: { effort: 'low' } }).output[0].summary).toEqual([]);
    expect(encode(result([part]), { reasoning: { effort: 'low', summary: 'auto' } }).output[0].summary).toEqual(carry.summary);
    expect(encode(result([{ type: 'reasoning', text: '' }]), { reasoning: { summary: 'auto' } }).output[0].summary).toEqual([]);
  });

  it('max_tokens → incomplete, reason max_output_tokens, only the last item incomplete; refusal → content_filter', () => {
    const r = encode(
      result(
        [
          { type: 'reasoning', text: 'x' },
          { type: 'text', text: 'The first part of' },
        ],
        'max_tokens',
      ),
    );
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.output.map((o: any) => o.status)).toEqual([undefined, 'incomplete']);
    const cutInReasoning = encode(result([{ type: 'reasoning', text: 'x' }], 'context_overflow'));
    expect(cutInReasoning.output[0].status).toBe('incomplete');
    const refused = encode(result([{ type: 'text', text: 'No.', refusal: true }], 'refusal'));
    expect(refused.incomplete_details).toEqual({ reason: 'content_filter' });
    expect(refused.output[0].content).toEqual([{ type: 'refusal', refusal: 'No.' }]);
  });

  it('usage: cached tokens always, cache_write_tokens only when non-zero, total = input + output', () => {
    const r = encode(result([], 'end_turn', usage({ inputTokens: 100, cacheReadTokens: 60, cacheWriteTokens: 30, outputTokens: 50, reasoningTokens: 20 })));
    expect(r.usage).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 60, cache_write_tokens: 30 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 20 },
      total_tokens: 150,
    });
    expect(encode(result([])).usage.input_tokens_details).toEqual({ cached_tokens: 0 });
  });

  it('a reasoning item echoed back in the next request restores the upstream state (round trip)', () => {
    const carry: ReasoningCarry = { family: 'anthropic', block: { type: 'thinking', thinking: 'Plan.', signature: 'sig' } };
    const r = encode(result([{ type: 'reasoning', text: 'Plan.', carry }, { type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '{}', kind: 'function' }], 'tool_use'));
    const next = responsesCodec.decodeRequest(
      { model: 'gpt-5', input: [...r.output, { type: 'function_call_output', call_id: 'toolu_1', output: 'done' }] },
      [],
    );
    expect(next.turns[0]).toEqual({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: '', carry },
        { type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '{}', kind: 'function', itemId: 'fc_abc_1' },
      ],
    });
  });
});
