import { readFileSync, writeFileSync } from 'node:fs';
import { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { responsesCodec } from '../../../../src/codecs/openai-responses/index.js';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import { decodeEnvelope, encodeEnvelope } from '../../../../src/ir/reasoning-envelope.js';
import { resultToEvents } from '../../../../src/ir/result-to-events.js';
import type { IrEvent } from '../../../../src/ir/types.js';
import {
  FIXTURE_SCENARIOS,
  customTool,
  errorMidStream,
  incompleteMaxTokens,
  openaiCarry,
  parallelCalls,
  reasoningNoSummary,
  reasoningToolText,
  refusal,
  textReply,
  type Scenario,
} from './scenarios.js';
import {
  NOW_MS,
  checkGrammar,
  encodeContext,
  eventsOf,
  expectedResponse,
  parseSse,
  runStream,
  sdkFinalResponse,
  sdkStream,
  usage,
  type Step,
} from './stream-support.js';

const fixtureUrl = (name: string) => new URL(`../../../fixtures/caller/openai-responses/${name}.sse`, import.meta.url);

beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW_MS);
});
afterAll(() => {
  vi.useRealTimers();
});

/** Streams a scenario, checks the grammar, and checks the SDK's accumulation equals encodeResult. */
async function agree(s: Scenario, chunk = 64) {
  const { sse, finished, completedAt } = runStream(s.steps, s.ctx);
  expect(finished).toBe(true);
  const frames = parseSse(sse);
  const grammar = checkGrammar(frames);
  const expected = expectedResponse(s.steps, s.ctx);
  expect(grammar.response, 'terminal response = encodeResult of the folded events').toEqual(expected);
  if (grammar.terminal === 'response.failed') expect(completedAt, 'a failed answer is not stored: no completed_at').toBeUndefined();
  else {
    // The store renders a streamed answer's response again when read (responses-store/stored-response.ts):
    // encodeResult of the folded events with the terminal frame's completed_at is, byte for byte, the
    // text that frame carried, even once the clock has moved on.
    expect(completedAt).toBe(Math.floor(NOW_MS / 1000));
    vi.setSystemTime(NOW_MS + 5_000);
    const again = responsesCodec.encodeResult(foldEvents(eventsOf(s.steps)), { ...s.ctx, completedAt });
    vi.setSystemTime(NOW_MS);
    expect(sse).toContain(',"response":' + again + '}');
  }
  expect(await sdkFinalResponse(sse, chunk), 'SDK finalResponse() = encodeResult').toEqual(expected);
  return { sse, frames, grammar, expected };
}

describe('responses stream encoder: saved scenarios, byte for byte', () => {
  for (const s of FIXTURE_SCENARIOS) {
    it(`${s.name} matches test/fixtures/caller/openai-responses/${s.name}.sse`, () => {
      const { sse } = runStream(s.steps, s.ctx);
      // UPDATE_FIXTURES=1 rewrites them after an intended change (review the diff).
      if (process.env.UPDATE_FIXTURES === '1') writeFileSync(fixtureUrl(s.name), sse);
      expect(sse).toBe(readFileSync(fixtureUrl(s.name), 'utf8'));
    });
  }
});

describe('responses stream encoder: grammar, and both modes agree through the real SDK', () => {
  it('(a) text reply: created/in_progress snapshot, one message item, completed with usage', async () => {
    const { frames, grammar, sse } = await agree(textReply);
    expect(frames.map((f) => f.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(sse.split(': keep-alive\n\n').length, 'the ping is one comment line, not an event').toBe(2);
    const created = frames[0]!.data.response;
    expect(created).toMatchObject({ id: 'resp_68b1f0c2a4e08190', created_at: 1_767_000_000, model: 'gpt-5', reasoning: { effort: 'medium', summary: null } });
    expect(grammar.items).toEqual([{ id: 'msg_68b1f0c2a4e08190_0', type: 'message' }]);
    expect(grammar.response).toMatchObject({
      status: 'completed',
      completed_at: NOW_MS / 1000,
      output: [{ content: [{ type: 'output_text', text: 'Hello there!', annotations: [], logprobs: [] }], status: 'completed' }],
      usage: { input_tokens: 19, input_tokens_details: { cached_tokens: 0 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 25 },
    });
  });

  it('(b) reasoning with summary parts, a function call, then text — ids consistent across events', async () => {
    const { frames, grammar } = await agree(reasoningToolText);
    expect(grammar.items).toEqual([
      { id: 'rs_9c_0', type: 'reasoning' },
      { id: 'fc_9c_1', type: 'function_call' },
      { id: 'msg_9c_2', type: 'message' },
    ]);
    const summaryEvents = frames.filter((f) => f.event.startsWith('response.reasoning_summary'));
    expect(summaryEvents.map((f) => [f.event, f.data.summary_index])).toEqual([
      ['response.reasoning_summary_part.added', 0],
      ['response.reasoning_summary_text.delta', 0],
      ['response.reasoning_summary_text.delta', 0],
      ['response.reasoning_summary_text.done', 0],
      ['response.reasoning_summary_part.done', 0],
      ['response.reasoning_summary_part.added', 1],
      ['response.reasoning_summary_text.delta', 1],
      ['response.reasoning_summary_text.done', 1],
      ['response.reasoning_summary_part.done', 1],
    ]);
    expect(frames.some((f) => f.event.startsWith('response.reasoning_text') || f.event.startsWith('response.reasoning.'))).toBe(false);
    const reasoning = grammar.response.output[0];
    expect(reasoning.summary).toEqual(openaiCarry.family === 'openai' ? openaiCarry.summary : []);
    // The upstream's item id is not ours, so its blob travels inside the envelope and comes back whole.
    expect(decodeEnvelope(reasoning.encrypted_content)).toEqual(openaiCarry);
    const args = frames.find((f) => f.event === 'response.function_call_arguments.done')!.data;
    expect(args).toMatchObject({ item_id: 'fc_9c_1', output_index: 1, arguments: '{"city":"Paris"}', name: 'get_weather' });
    expect(grammar.response.output[1]).toEqual({
      id: 'fc_9c_1',
      type: 'function_call',
      status: 'completed',
      arguments: '{"city":"Paris"}',
      call_id: 'call_Wq2Lx7',
      name: 'get_weather',
    });
  });

  it('(b′) no summary requested: reasoning item added and done only, summary [], envelope carries the thinking', async () => {
    const { frames, grammar } = await agree(reasoningNoSummary);
    expect(frames.slice(2, 4).map((f) => f.event)).toEqual(['response.output_item.added', 'response.output_item.done']);
    expect(frames.some((f) => f.event.startsWith('response.reasoning_summary'))).toBe(false);
    const item = grammar.response.output[0];
    expect(item.summary).toEqual([]);
    expect(decodeEnvelope(item.encrypted_content)).toEqual({
      family: 'anthropic',
      block: { type: 'thinking', thinking: 'The user wants Paris weather.', signature: 'EqoBsig' },
    });
    expect(grammar.response.usage).toEqual({
      input_tokens: 2560,
      input_tokens_details: { cached_tokens: 2048, cache_write_tokens: 100 },
      output_tokens: 96,
      output_tokens_details: { reasoning_tokens: 40 },
      total_tokens: 2656,
    });
  });

  it('two parallel calls: two function_call items; a call without deltas still gets one delta and its done', async () => {
    const { frames, grammar } = await agree(parallelCalls, 7);
    expect(grammar.items).toEqual([
      { id: 'fc_pc_0', type: 'function_call' },
      { id: 'fc_pc_1', type: 'function_call' },
    ]);
    const deltas = frames.filter((f) => f.event === 'response.function_call_arguments.delta').map((f) => [f.data.output_index, f.data.delta]);
    expect(deltas).toEqual([
      [0, '{"city":"Paris"}'],
      [1, '{"city":"Rome"}'],
    ]);
    expect(grammar.response.output.map((o: any) => [o.call_id, o.arguments])).toEqual([
      ['call_paris', '{"city":"Paris"}'],
      ['call_rome', '{"city":"Rome"}'],
    ]);
  });

  it('custom tool: custom_tool_call_input deltas and done, custom_tool_call item with input', async () => {
    const { frames, grammar } = await agree(customTool);
    expect(frames.filter((f) => f.event.startsWith('response.custom_tool_call_input')).map((f) => f.event)).toEqual([
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
    ]);
    expect(grammar.response.output[1]).toEqual({
      id: 'ctc_ct_1',
      type: 'custom_tool_call',
      status: 'completed',
      call_id: 'call_patch',
      name: 'apply_patch',
      input: '*** Begin Patch\n*** Add File: a.txt\n+hello "world"\n*** End Patch',
    });
    expect(grammar.response.tool_choice).toEqual({ type: 'custom', name: 'apply_patch' });
    expect(grammar.response.tools).toEqual([
      {
        type: 'custom',
        name: 'apply_patch',
        description: 'Use the `apply_patch` tool to edit files.',
        format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
      },
    ]);
  });

  it('max_tokens: response.incomplete with reason max_output_tokens and the last item incomplete', async () => {
    const { frames, grammar } = await agree(incompleteMaxTokens);
    expect(grammar.terminal).toBe('response.incomplete');
    expect(grammar.response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(grammar.response.max_output_tokens).toBe(16);
    const done = frames.find((f) => f.event === 'response.output_item.done')!.data.item;
    expect(done.status).toBe('incomplete');
    expect(grammar.response.output[0].status).toBe('incomplete');
  });

  it('refusal: refusal part events, response.incomplete with content_filter', async () => {
    const { frames, grammar } = await agree(refusal);
    expect(frames.slice(2, -1).map((f) => f.event)).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.refusal.delta',
      'response.refusal.delta',
      'response.refusal.done',
      'response.content_part.done',
      'response.output_item.done',
    ]);
    expect(grammar.response.output[0].content).toEqual([{ type: 'refusal', refusal: "I can't help with that." }]);
    expect(grammar.response.incomplete_details).toEqual({ reason: 'content_filter' });
  });

  it('error mid-stream: open call closed as incomplete, superset error frame, response.failed, nothing after', async () => {
    const { sse, finished } = runStream(errorMidStream.steps, errorMidStream.ctx);
    expect(finished).toBe(true);
    const frames = parseSse(sse);
    const grammar = checkGrammar(frames);
    expect(grammar.terminal).toBe('response.failed');
    expect(grammar.sawError).toBe(true);
    const error = frames.find((f) => f.event === 'error')!.data;
    expect(error).toEqual({
      type: 'error',
      sequence_number: error.sequence_number,
      code: 'rate_limit_exceeded',
      message: 'Rate limit reached',
      param: null,
      error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Rate limit reached', param: null },
    });
    expect(grammar.response.error).toEqual({ code: 'rate_limit_exceeded', message: 'Rate limit reached' });
    expect(grammar.response.usage).toBeNull();
    expect(grammar.response.output.map((o: any) => [o.type, o.status])).toEqual([
      ['message', 'completed'],
      ['function_call', 'incomplete'],
    ]);
    expect(grammar.response.output[1].arguments).toBe('{"city":"Par');
    // The SDK turns the error frame into a real APIError carrying the message.
    const err = await sdkStream(sse).finalResponse().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).message).toContain('Rate limit reached');
  });

  it('context overflow and other kinds map to the failed codes clients act on', () => {
    const failed = (kind: string) => {
      const { frames } = runStream([{ type: 'error', error: { kind, message: 'boom' } }], encodeContext());
      const f = parseSse(frames.join(''));
      expect(f.map((x) => x.event)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
      return [f[2]!.data.error.type, f[3]!.data.response.error.code];
    };
    expect(failed('context_overflow')).toEqual(['invalid_request_error', 'context_length_exceeded']);
    expect(failed('overloaded')).toEqual(['server_error', 'server_error']);
    expect(failed('api_error')).toEqual(['server_error', 'server_error']);
  });

  it('the SSE survives any chunking: parsed at 1-byte splits and fed to the SDK byte by byte', async () => {
    const { sse } = runStream(reasoningToolText.steps, reasoningToolText.ctx);
    expect(parseSse(sse, 1)).toEqual(parseSse(sse));
    expect(await sdkFinalResponse(sse, 1)).toEqual(expectedResponse(reasoningToolText.steps, reasoningToolText.ctx));
  });
});

describe('responses stream encoder: edge cases', () => {
  it('a non-streamed upstream answer replayed as events streams the same object (resultToEvents)', async () => {
    const result = foldEvents(eventsOf(reasoningToolText.steps));
    const steps: IrEvent[] = [];
    resultToEvents(result, (ev) => steps.push(ev));
    const s: Scenario = { name: 'replayed', ctx: reasoningToolText.ctx, steps };
    const { expected } = await agree(s);
    expect(expected).toEqual(expectedResponse(reasoningToolText.steps, reasoningToolText.ctx));
  });

  it('an OpenAI carry whose id is the derived item id keeps its native encrypted_content', async () => {
    const carry = { family: 'openai' as const, id: 'rs_same_0', encryptedContent: 'gAAAAABnative', summary: [] };
    const s: Scenario = {
      name: 'native',
      ctx: encodeContext({ reasoning: { effort: 'low', summary: 'auto' } }, 'resp_same'),
      steps: [
        { type: 'reasoning-start', block: 0 },
        { type: 'reasoning-end', block: 0, carry },
        { type: 'text-start', block: 1 },
        { type: 'text-delta', block: 1, text: 'ok' },
        { type: 'text-end', block: 1 },
        { type: 'finish', finish: { reason: 'end_turn', raw: 'completed' } },
      ],
    };
    const { grammar } = await agree(s);
    expect(grammar.response.output[0]).toEqual({ id: 'rs_same_0', type: 'reasoning', summary: [], encrypted_content: 'gAAAAABnative' });
  });

  it('reasoning without any carry is wrapped as a chat envelope of its text', async () => {
    const s: Scenario = {
      name: 'chat-reasoning',
      ctx: encodeContext({ reasoning: { summary: 'concise' } }, 'resp_cr'),
      steps: [
        { type: 'reasoning-start', block: 0 },
        { type: 'reasoning-delta', block: 0, text: 'think' },
        { type: 'reasoning-end', block: 0 },
        { type: 'finish', finish: { reason: 'end_turn', raw: 'stop' } },
      ],
    };
    const { grammar } = await agree(s);
    const item = grammar.response.output[0];
    expect(item.summary).toEqual([{ type: 'summary_text', text: 'think' }]);
    expect(item.encrypted_content).toBe(encodeEnvelope({ family: 'chat', text: 'think' }));
  });

  it('empty text blocks make no item; stray deltas are ignored like the fold ignores them', async () => {
    const s: Scenario = {
      name: 'empty',
      ctx: encodeContext({}, 'resp_em'),
      steps: [
        { type: 'text-start', block: 0 },
        { type: 'text-delta', block: 0, text: '' },
        { type: 'text-end', block: 0 },
        { type: 'text-delta', block: 1, text: 'stray' },
        { type: 'tool-call-delta', block: 1, argumentsDelta: '{"x":1}' },
        { type: 'tool-call-start', block: 1, id: 'call_1', name: 'noop', kind: 'function' },
        { type: 'tool-call-end', block: 1 },
        { type: 'finish', finish: { reason: 'tool_use', raw: 'tool_use' } },
      ],
    };
    const { grammar } = await agree(s);
    // The index counts items, not IR blocks; empty arguments become an empty JSON object.
    expect(grammar.response.output).toEqual([
      { id: 'fc_em_0', type: 'function_call', status: 'completed', arguments: '{}', call_id: 'call_1', name: 'noop' },
    ]);
  });

  it('namespaced calls carry their namespace; the echo regroups namespace tools', async () => {
    const s: Scenario = {
      name: 'namespace',
      ctx: encodeContext(
        {
          tools: [
            { name: 'spawn_agent', kind: 'function', namespace: 'multi_agent_v1', inputSchema: { type: 'object' }, strict: false },
            { name: 'exec_command', kind: 'function', description: 'Run', inputSchema: { type: 'object' } },
          ],
          toolChoice: { type: 'allowed', mode: 'required', names: ['exec_command'] },
        },
        'resp_ns',
      ),
      steps: [
        { type: 'tool-call-start', block: 0, id: 'call_ns', name: 'spawn_agent', kind: 'function', namespace: 'multi_agent_v1' },
        { type: 'tool-call-delta', block: 0, argumentsDelta: '{}' },
        { type: 'tool-call-end', block: 0 },
        { type: 'finish', finish: { reason: 'tool_use', raw: 'tool_use' } },
      ],
    };
    const { grammar } = await agree(s);
    expect(grammar.response.output[0].namespace).toBe('multi_agent_v1');
    expect(grammar.response.tools).toEqual([
      {
        type: 'namespace',
        name: 'multi_agent_v1',
        description: '',
        tools: [{ type: 'function', name: 'spawn_agent', description: null, parameters: { type: 'object' }, strict: false }],
      },
      { type: 'function', name: 'exec_command', description: 'Run', parameters: { type: 'object' }, strict: null },
    ]);
    expect(grammar.response.tool_choice).toEqual({ type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'exec_command' }] });
  });

  it('a stream ended by the delivery layer (error event only) is still a complete, terminal stream', () => {
    const steps: Step[] = [
      { type: 'response-start', id: 'x', model: 'm', usage: usage({ inputTokens: 7 }) },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'partial' },
      { type: 'error', error: { kind: 'api_error', message: 'upstream stream ended unexpectedly' } },
    ];
    const { sse } = runStream(steps, encodeContext({}, 'resp_cut'));
    const grammar = checkGrammar(parseSse(sse));
    expect(grammar.terminal).toBe('response.failed');
    expect(grammar.response.output[0]).toMatchObject({ status: 'incomplete', content: [{ text: 'partial' }] });
    expect(grammar.response.usage.input_tokens).toBe(7);
  });

  it('after the terminal event: no more frames, pings included', () => {
    const frames: string[] = [];
    const enc = responsesCodec.createStreamEncoder(textReply.ctx, (f) => frames.push(f));
    for (const ev of eventsOf(textReply.steps)) enc.event(ev);
    const n = frames.length;
    expect(enc.finished).toBe(true);
    enc.ping();
    enc.event({ type: 'text-start', block: 9 });
    enc.event({ type: 'error', error: { kind: 'api_error', message: 'late' } });
    expect(frames.length).toBe(n);
  });
});
