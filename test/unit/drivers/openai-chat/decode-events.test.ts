import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import { toCallerId } from '../../../../src/ir/tool-ids.js';
import type { IrEvent, IrRequest, ToolDefinition } from '../../../../src/ir/types.js';
import { decodeChunks, expectWellFormed, fixture, request } from './support.js';

const CUSTOM_TOOLS: ToolDefinition[] = [
  { name: 'apply_patch', kind: 'custom', description: 'Apply a patch' },
  { name: 'spawn', namespace: 'multi_agent_v1', kind: 'function', inputSchema: { type: 'object', properties: { task: { type: 'string' } } } },
];

/** Fixture → the request it answers (only tool definitions matter to the decoder). */
const FIXTURE_REQUESTS: Record<string, IrRequest> = {
  'comments-crlf.sse': request(),
  'custom-tool.sse': request({ tools: CUSTOM_TOOLS }),
  'deepseek-reasoning.sse': request(),
  'duplicate-ids.sse': request(),
  'interleaved-tool-calls.sse': request(),
  'missing-ids.sse': request(),
  'missing-index.sse': request(),
  'no-done.sse': request(),
  'non-json-frame.sse': request(),
  'openrouter-stream-error.sse': request(),
  'parallel-tool-calls.sse': request(),
  'refusal.sse': request(),
  'stop-with-tool-calls.sse': request(),
  'text.sse': request(),
  'truncated.sse': request(),
  'vllm-reasoning.sse': request(),
  'vllm-stream-error.sse': request(),
  'whole-call-object-args.sse': request(),
};

function decodeFixture(name: string): IrEvent[] {
  return decodeChunks(FIXTURE_REQUESTS[name]!, [fixture(name)]);
}

const usage = (inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number, outputTokens: number, reasoningTokens: number) => ({
  type: 'usage' as const,
  usage: { inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens, reasoningTokens },
});

describe('chat event decoder on recorded streams', () => {
  it('text stream (chat-completions.md §5): one text block, trailing usage chunk, finish stop', () => {
    expect(decodeFixture('text.sse')).toEqual([
      { type: 'response-start', id: 'chatcmpl-7a', model: 'gpt-4.1' },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Hello' },
      { type: 'text-delta', block: 0, text: ' there!' },
      { type: 'text-end', block: 0 },
      usage(19, 0, 0, 3, 0),
      { type: 'finish', finish: { reason: 'end_turn', raw: 'stop' } },
    ]);
  });

  it('two parallel tool calls stream one after the other', () => {
    expect(decodeFixture('parallel-tool-calls.sse')).toEqual([
      { type: 'response-start', id: 'chatcmpl-7b', model: 'gpt-4.1' },
      { type: 'tool-call-start', block: 0, id: 'call_A1', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '{"city": "Par' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: 'is"}' },
      { type: 'tool-call-end', block: 0, arguments: '{"city": "Paris"}' },
      { type: 'tool-call-start', block: 1, id: 'call_B2', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"city": "Rome"}' },
      { type: 'tool-call-end', block: 1, arguments: '{"city": "Rome"}' },
      usage(90, 0, 0, 40, 0),
      { type: 'finish', finish: { reason: 'tool_use', raw: 'tool_calls' } },
    ]);
  });

  it('DeepSeek reasoning_content: reasoning block with a chat carry, then text; usage in the finish chunk', () => {
    expect(decodeFixture('deepseek-reasoning.sse')).toEqual([
      { type: 'response-start', id: '0f3c', model: 'deepseek-reasoner' },
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-delta', block: 0, text: 'The user asks 9.11 vs 9.8' },
      { type: 'reasoning-delta', block: 0, text: '; 0.8 > 0.11.' },
      { type: 'reasoning-end', block: 0, carry: { family: 'chat', text: 'The user asks 9.11 vs 9.8; 0.8 > 0.11.' } },
      { type: 'text-start', block: 1 },
      { type: 'text-delta', block: 1, text: '9.8 is larger.' },
      { type: 'text-end', block: 1 },
      usage(14, 8, 0, 120, 110),
      { type: 'finish', finish: { reason: 'end_turn', raw: 'stop' } },
    ]);
  });

  it('vLLM `reasoning` field with usage on every chunk: the last usage wins', () => {
    expect(decodeFixture('vllm-reasoning.sse')).toEqual([
      { type: 'response-start', id: 'chatcmpl-b1c2', model: 'Qwen/Qwen3-8B' },
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-delta', block: 0, text: 'Greeting; ' },
      { type: 'reasoning-delta', block: 0, text: 'answer briefly.' },
      { type: 'reasoning-end', block: 0, carry: { family: 'chat', text: 'Greeting; answer briefly.' } },
      { type: 'text-start', block: 1 },
      { type: 'text-delta', block: 1, text: 'Hi!' },
      { type: 'text-end', block: 1 },
      usage(12, 4, 0, 8, 0),
      { type: 'finish', finish: { reason: 'end_turn', raw: 'stop' } },
    ]);
  });

  it('interleaved fragments: the open call keeps streaming, the other is buffered and emitted whole at the end', () => {
    const events = decodeFixture('interleaved-tool-calls.sse');
    expect(events).toEqual([
      { type: 'response-start', id: 'chatcmpl-il', model: 'some-model' },
      { type: 'tool-call-start', block: 0, id: 'call_P', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: ' "Paris"}' },
      { type: 'tool-call-end', block: 0, arguments: '{"city": "Paris"}' },
      { type: 'tool-call-start', block: 1, id: 'call_R', name: 'get_time', kind: 'function' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"tz": "CET"}' },
      { type: 'tool-call-end', block: 1, arguments: '{"tz": "CET"}' },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'tool_calls' } },
    ]);
  });

  it('whole calls in one delta with object arguments are stringified', () => {
    const result = foldEvents(decodeFixture('whole-call-object-args.sse'));
    expect(result.content).toEqual([
      { type: 'tool-call', id: 'call_o1', name: 'get_weather', arguments: '{"city":"Paris","days":2}', kind: 'function' },
      { type: 'tool-call', id: 'call_o2', name: 'get_weather', arguments: '{"city":"Rome"}', kind: 'function' },
    ]);
    expect(result.finish).toEqual({ reason: 'tool_use', raw: 'tool_calls' });
  });

  it('duplicate `call_0` ids (repeated on every fragment) become unique per response', () => {
    const events = decodeFixture('duplicate-ids.sse');
    const starts = events.filter((e) => e.type === 'tool-call-start');
    expect(starts.map((e) => e.id)).toEqual(['call_0', 'call_chatcmpl-dup_1']);
    expect(foldEvents(events).content.map((p) => (p.type === 'tool-call' ? p.arguments : ''))).toEqual([
      '{"path": "a.txt"}',
      '{"path": "b.txt"}',
    ]);
  });

  it('missing index: position in the array; a new id on the same position starts a new call; ids made portable', () => {
    const result = foldEvents(decodeFixture('missing-index.sse'));
    expect(result.content).toEqual([
      { type: 'tool-call', id: toCallerId('functions.get_time:0'), name: 'get_time', arguments: '{"tz": "UTC"}', kind: 'function' },
      { type: 'tool-call', id: toCallerId('functions.get_time:1'), name: 'get_time', arguments: '{"tz": "JST"}', kind: 'function' },
    ]);
    expect(toCallerId('functions.get_time:0')).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('missing and empty ids are synthesized from the response id', () => {
    const starts = decodeFixture('missing-ids.sse').filter((e) => e.type === 'tool-call-start');
    expect(starts.map((e) => [e.id, e.name])).toEqual([
      ['call_chatcmpl-noid_0', 'get_time'],
      ['call_chatcmpl-noid_1', 'get_weather'],
    ]);
  });

  it('finish_reason "stop" after tool calls reports tool_use and keeps the raw value', () => {
    const events = decodeFixture('stop-with-tool-calls.sse');
    expect(events.slice(1, 6).map((e) => e.type)).toEqual(['text-start', 'text-delta', 'text-end', 'tool-call-start', 'tool-call-delta']);
    expect(events.at(-1)).toEqual({ type: 'finish', finish: { reason: 'tool_use', raw: 'stop' } });
    expect(events.some((e) => e.type === 'usage')).toBe(false);
  });

  it('no [DONE] after a finish_reason: completes at end of body with the trailing usage', () => {
    expect(decodeFixture('no-done.sse').slice(-4)).toEqual([
      { type: 'text-delta', block: 0, text: ' answer' },
      { type: 'text-end', block: 0 },
      usage(5, 0, 0, 2, 0),
      { type: 'finish', finish: { reason: 'max_tokens', raw: 'length' } },
    ]);
  });

  it('a stream cut before any finish_reason ends with an api_error, never a finish', () => {
    const events = decodeFixture('truncated.sse');
    expect(events.slice(-2)).toEqual([
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"pa' },
      { type: 'error', error: { kind: 'api_error', message: 'upstream stream ended before finish_reason' } },
    ]);
    expect(events.some((e) => e.type === 'finish')).toBe(false);
  });

  it('OpenRouter mid-stream error chunk (numeric code) → error event; the [DONE] after it is ignored', () => {
    const events = decodeFixture('openrouter-stream-error.sse');
    expect(events.map((e) => e.type)).toEqual(['response-start', 'text-start', 'text-delta', 'error']);
    expect(events.at(-1)).toEqual({ type: 'error', error: { kind: 'bad_gateway', message: 'Provider returned error', status: 502 } });
  });

  it('vLLM error frame → error event with the kind of its numeric code', () => {
    expect(decodeFixture('vllm-stream-error.sse').at(-1)).toEqual({
      type: 'error',
      error: { kind: 'api_error', message: 'The engine encountered an internal error.', status: 500 },
    });
  });

  it('comments, CRLF, `data:` without a space and an Azure prompt-filter chunk are tolerated', () => {
    expect(decodeFixture('comments-crlf.sse')).toEqual([
      { type: 'response-start', id: 'chatcmpl-az', model: 'gpt-4o-2024-11-20' },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Bonjour ' },
      { type: 'text-delta', block: 0, text: 'à tous ✓' },
      { type: 'text-end', block: 0 },
      usage(9, 0, 3, 4, 0),
      { type: 'finish', finish: { reason: 'end_turn', raw: 'stop' } },
    ]);
  });

  it('a non-JSON data frame is an upstream error', () => {
    const last = decodeFixture('non-json-frame.sse').at(-1);
    expect(last?.type).toBe('error');
    if (last?.type === 'error') {
      expect(last.error.kind).toBe('api_error');
      expect(last.error.message).toContain('<html><body>502 Bad Gateway');
    }
  });

  it('refusal deltas form a text block flagged as refusal', () => {
    const events = decodeFixture('refusal.sse');
    expect(events[1]).toEqual({ type: 'text-start', block: 0, refusal: true });
    expect(foldEvents(events).content).toEqual([{ type: 'text', text: "I'm sorry, I can't help with that.", refusal: true }]);
  });

  it('custom tools are unwrapped to their raw input; namespaced names are mapped back', () => {
    expect(decodeFixture('custom-tool.sse')).toEqual([
      { type: 'response-start', id: 'chatcmpl-ct', model: 'gpt-4.1' },
      { type: 'tool-call-start', block: 0, id: 'call_C1', name: 'apply_patch', kind: 'custom' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '*** Begin Patch\n*** End Patch' },
      { type: 'tool-call-end', block: 0, arguments: '*** Begin Patch\n*** End Patch' },
      { type: 'tool-call-start', block: 1, id: 'call_N2', name: 'spawn', kind: 'function', namespace: 'multi_agent_v1' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"task":"x"}' },
      { type: 'tool-call-end', block: 1, arguments: '{"task":"x"}' },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'tool_calls' } },
    ]);
  });

  for (const name of Object.keys(FIXTURE_REQUESTS)) {
    it(`${name}: well-formed, and identical events for the bytes split at every offset`, () => {
      const req = FIXTURE_REQUESTS[name]!;
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

/** Build a chunk frame for the inline scenarios below. */
function chunk(delta: Record<string, unknown> | undefined, finish: string | null = null, extra: Record<string, unknown> = {}): string {
  const choices = delta === undefined ? [] : [{ index: 0, delta, finish_reason: finish }];
  return `data: ${JSON.stringify({ id: 'r1', object: 'chat.completion.chunk', model: 'm', choices, ...extra })}\n\n`;
}
const DONE = 'data: [DONE]\n\n';
const call = (index: number, id: string | undefined, name: string | undefined, args: string) => ({
  tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: { ...(name ? { name } : {}), arguments: args } }],
});

describe('chat event decoder edge cases', () => {
  it('a fragment for an already closed call switches to buffering: later calls arrive whole, blocks stay sequential', () => {
    const events = decodeChunks(request(), [
      chunk(call(0, 'c0', 'a', '{"x":1}')),
      chunk(call(1, 'c1', 'b', '{"y":')),
      chunk(call(0, undefined, undefined, ' ')), // whitespace after a complete object: still a late fragment
      chunk(call(2, 'c2', 'c', '{"z":3}')),
      chunk(call(1, undefined, undefined, '2}')),
      chunk({}, 'tool_calls'),
      DONE,
    ]);
    expectWellFormed(events);
    expect(events.filter((e) => e.type !== 'response-start' && e.type !== 'finish')).toEqual([
      { type: 'tool-call-start', block: 0, id: 'c0', name: 'a', kind: 'function' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '{"x":1}' },
      { type: 'tool-call-end', block: 0, arguments: '{"x":1}' },
      { type: 'tool-call-start', block: 1, id: 'c1', name: 'b', kind: 'function' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"y":' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '2}' },
      { type: 'tool-call-end', block: 1, arguments: '{"y":2}' },
      { type: 'tool-call-start', block: 2, id: 'c2', name: 'c', kind: 'function' },
      { type: 'tool-call-delta', block: 2, argumentsDelta: '{"z":3}' },
      { type: 'tool-call-end', block: 2, arguments: '{"z":3}' },
    ]);
  });

  it('a name that arrives after the first fragment delays the block start; the arguments gathered meanwhile follow it', () => {
    const events = decodeChunks(request(), [chunk(call(0, 'c0', undefined, '{"a"')), chunk(call(0, undefined, 'late', ':1}')), chunk({}, 'tool_calls'), DONE]);
    expectWellFormed(events);
    expect(events.slice(1, 4)).toEqual([
      { type: 'tool-call-start', block: 0, id: 'c0', name: 'late', kind: 'function' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '{"a":1}' },
      { type: 'tool-call-end', block: 0, arguments: '{"a":1}' },
    ]);
  });

  it('the name of a call is never re-set by later fragments', () => {
    const events = decodeChunks(request(), [chunk(call(0, 'c0', 'first', '{')), chunk(call(0, 'c0', 'second', '}')), chunk({}, 'tool_calls'), DONE]);
    expect(foldEvents(events).content).toEqual([{ type: 'tool-call', id: 'c0', name: 'first', arguments: '{}', kind: 'function' }]);
  });

  it('an error before any output is the first event (so delivery can still fall back with a real status)', () => {
    const events = decodeChunks(request(), [
      'data: {"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}\n\n',
    ]);
    expect(events).toEqual([{ type: 'error', error: { kind: 'rate_limit', message: 'Rate limit reached for requests' } }]);
  });

  it('a context-length error chunk maps to context_overflow', () => {
    const events = decodeChunks(request(), [
      `data: ${JSON.stringify({ error: { object: 'error', message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.", type: 'BadRequestError', code: 400 } })}\n\n`,
    ]);
    expect(events[0]).toMatchObject({ type: 'error', error: { kind: 'context_overflow', status: 400 } });
  });

  it('[DONE] without finish_reason: end_turn, or tool_use when calls were made', () => {
    const text = decodeChunks(request(), [chunk({ content: 'ok' }), DONE]);
    expect(text.at(-1)).toEqual({ type: 'finish', finish: { reason: 'end_turn', raw: null } });
    const tools = decodeChunks(request(), [chunk(call(0, 'c0', 'f', '{}')), DONE]);
    expect(tools.at(-1)).toEqual({ type: 'finish', finish: { reason: 'tool_use', raw: null } });
  });

  it('finish_reason "error" without an error object is an error, not a finish', () => {
    const events = decodeChunks(request(), [chunk({ content: 'par' }), chunk({}, 'error'), DONE]);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'api_error' } });
    expect(events.some((e) => e.type === 'finish')).toBe(false);
  });

  it('content_filter → refusal; unknown values → end_turn with the raw value kept', () => {
    expect(decodeChunks(request(), [chunk({ content: 'x' }, 'content_filter'), DONE]).at(-1)).toEqual({
      type: 'finish',
      finish: { reason: 'refusal', raw: 'content_filter' },
    });
    expect(decodeChunks(request(), [chunk({ content: 'x' }, 'eos'), DONE]).at(-1)).toEqual({ type: 'finish', finish: { reason: 'end_turn', raw: 'eos' } });
  });

  it('reasoning that resumes after text opens a new block with its own carry', () => {
    const events = decodeChunks(request(), [
      chunk({ reasoning_content: 'think 1' }),
      chunk({ content: 'say' }),
      chunk({ reasoning_content: 'think 2', content: null }),
      chunk({}, 'stop'),
      DONE,
    ]);
    expectWellFormed(events);
    expect(foldEvents(events).content).toEqual([
      { type: 'reasoning', text: 'think 1', carry: { family: 'chat', text: 'think 1' } },
      { type: 'text', text: 'say' },
      { type: 'reasoning', text: 'think 2', carry: { family: 'chat', text: 'think 2' } },
    ]);
  });

  it('a frame cut in the middle of its JSON at end of body is an error', () => {
    const events = decodeChunks(request(), [chunk({ content: 'a' }), 'data: {"id":"r1","choi']);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'api_error' } });
  });

  it('an empty body is an error with no response-start', () => {
    expect(decodeChunks(request(), [])).toEqual([{ type: 'error', error: { kind: 'api_error', message: 'upstream stream ended before finish_reason' } }]);
  });
});
