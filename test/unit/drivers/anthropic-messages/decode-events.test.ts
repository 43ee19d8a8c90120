import { describe, expect, it } from 'vitest';
import { anthropicDriver } from '../../../../src/drivers/anthropic-messages/index.js';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import { toCallerId } from '../../../../src/ir/tool-ids.js';
import type { IrEvent, IrRequest, ToolDefinition, Usage } from '../../../../src/ir/types.js';
import { decodeChunks, expectWellFormed, fixture, fixtureJson, request } from './support.js';

const WEATHER: ToolDefinition = {
  name: 'get_weather',
  kind: 'function',
  inputSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } } },
};
const RESPONSES_TOOLS: ToolDefinition[] = [
  { name: 'apply_patch', kind: 'custom', description: 'Apply a patch', format: { type: 'text' } },
  { name: 'spawn', namespace: 'multi_agent_v1', kind: 'function', inputSchema: { type: 'object', properties: { task: { type: 'string' } } } },
  { name: 'list_files', kind: 'function' },
];

/** Fixture → the request it answers (only tool definitions matter to the decoder). */
const FIXTURE_REQUESTS: Record<string, IrRequest> = {
  'text-reply.sse': request(),
  'thinking-text-tool-use.sse': request({ tools: [WEATHER] }),
  'redacted-thinking.sse': request(),
  'server-tool-citations.sse': request(),
  'error-overloaded.sse': request(),
  'truncated.sse': request(),
  'custom-namespace-tools.sse': request({ tools: RESPONSES_TOOLS }),
};

function decodeFixture(name: string): IrEvent[] {
  return decodeChunks(FIXTURE_REQUESTS[name]!, [fixture(name)]);
}

function usage(inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number, outputTokens: number, reasoningTokens = 0): Usage {
  return { inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens, reasoningTokens };
}

/** Frames as Anthropic writes them: `event:` line named after the data's type, one-line JSON. */
function sse(...events: Record<string, unknown>[]): string {
  return events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

function messageStart(u: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 }): Record<string, unknown> {
  return {
    type: 'message_start',
    message: { id: 'msg_x', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: u },
  };
}

function textOnly(stopReason: string | null, stopSequence: string | null = null): string {
  return sse(
    messageStart(),
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: stopSequence }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  );
}

describe('Messages event decoder on recorded streams', () => {
  it('(a) text-only reply: split usage mapped, pings ignored, cumulative output count at the end', () => {
    expect(decodeFixture('text-reply.sse')).toEqual([
      { type: 'response-start', id: 'msg_01HkT3yWq9cZ8n2bVx4Pj6Lm', model: 'claude-sonnet-4-5-20250929', usage: usage(21, 0, 0, 1) },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Hi! How can' },
      { type: 'text-delta', block: 0, text: ' I help today?' },
      { type: 'text-end', block: 0 },
      { type: 'usage', usage: usage(21, 0, 0, 12) },
      { type: 'finish', finish: { reason: 'end_turn', raw: 'end_turn' } },
    ]);
  });

  it('(b) thinking → text → tool_use: signature kept as the carry, empty json delta skipped, input text streamed', () => {
    expect(decodeFixture('thinking-text-tool-use.sse')).toEqual([
      // Anthropic's input_tokens excludes cache reads: the IR counts the whole prompt.
      { type: 'response-start', id: 'msg_01XbK2Qm7sVfJ9aR3tYp4LcD', model: 'claude-sonnet-4-5-20250929', usage: usage(2560, 2048, 0, 3) },
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-delta', block: 0, text: 'The user wants Paris weather;' },
      { type: 'reasoning-delta', block: 0, text: ' call the tool.' },
      {
        type: 'reasoning-end',
        block: 0,
        carry: {
          family: 'anthropic',
          block: { type: 'thinking', thinking: 'The user wants Paris weather; call the tool.', signature: 'EqoBCkgIBhABGAIiQ…' },
        },
      },
      { type: 'text-start', block: 1 },
      { type: 'text-delta', block: 1, text: 'Let me check the current weather' },
      { type: 'text-delta', block: 1, text: ' in Paris.' },
      { type: 'text-end', block: 1 },
      { type: 'tool-call-start', block: 2, id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 2, argumentsDelta: '{"city": "Pa' },
      { type: 'tool-call-delta', block: 2, argumentsDelta: 'ris", "unit": "cel' },
      { type: 'tool-call-delta', block: 2, argumentsDelta: 'sius"}' },
      { type: 'tool-call-end', block: 2, arguments: '{"city": "Paris", "unit": "celsius"}' },
      { type: 'usage', usage: usage(2560, 2048, 0, 96) },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'tool_use' } },
    ]);
  });

  it('(b) folded stream equals the non-streamed Message of messages.md §9', () => {
    const streamed = foldEvents(decodeFixture('thinking-text-tool-use.sse'));
    const whole = anthropicDriver.decodeResult(fixtureJson('message-thinking-text-tool-use.json'), FIXTURE_REQUESTS['thinking-text-tool-use.sse']!);
    const args = (r: typeof whole) => r.content.map((p) => (p.type === 'tool-call' ? { ...p, arguments: JSON.parse(p.arguments) } : p));
    expect(args(streamed)).toEqual(args(whole));
    expect(streamed.finish).toEqual(whole.finish);
    expect(streamed.usage).toEqual(whole.usage);
    expect(streamed.id).toBe(whole.id);
  });

  it('redacted thinking: its data is the carry; a following thinking block keeps its own signature', () => {
    expect(decodeFixture('redacted-thinking.sse')).toEqual([
      { type: 'response-start', id: 'msg_01RdT7kq2WbN4xVz8cLp3Hs', model: 'claude-sonnet-4-5-20250929', usage: usage(40, 0, 0, 2) },
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-end', block: 0, carry: { family: 'anthropic', block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix…' } } },
      { type: 'reasoning-start', block: 1 },
      { type: 'reasoning-delta', block: 1, text: 'Answer briefly; the café question is simple.' },
      {
        type: 'reasoning-end',
        block: 1,
        carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'Answer briefly; the café question is simple.', signature: 'ErUBCkYIBxgCIkB0c2ln' } },
      },
      { type: 'text-start', block: 2 },
      { type: 'text-delta', block: 2, text: 'Café au lait ☕ is ' },
      { type: 'text-delta', block: 2, text: 'coffee with milk.' },
      { type: 'text-end', block: 2 },
      { type: 'usage', usage: usage(40, 0, 0, 58) },
      { type: 'finish', finish: { reason: 'end_turn', raw: 'end_turn' } },
    ]);
  });

  it('server tool blocks and citations produce nothing; the text after them is block 0', () => {
    expect(decodeFixture('server-tool-citations.sse')).toEqual([
      { type: 'response-start', id: 'msg_01SrvW3bQ9xKp2LmN7vT4cYd', model: 'claude-sonnet-4-5-20250929', usage: usage(2200, 0, 0, 4) },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'The sky is blue.' },
      { type: 'text-end', block: 0 },
      { type: 'usage', usage: usage(2200, 0, 0, 120) },
      { type: 'finish', finish: { reason: 'end_turn', raw: 'end_turn' } },
    ]);
  });

  it('error event mid-stream: mapped kind, original message, nothing after it', () => {
    expect(decodeFixture('error-overloaded.sse')).toEqual([
      { type: 'response-start', id: 'msg_01OvLd5rTq8ZkW2mYb6Nc3Jx', model: 'claude-sonnet-4-5-20250929', usage: usage(12, 0, 0, 1) },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Working on' },
      { type: 'error', error: { kind: 'overloaded', message: 'Overloaded' } },
    ]);
  });

  it('a stream cut before message_stop ends with an error, never a finish', () => {
    expect(decodeFixture('truncated.sse')).toEqual([
      { type: 'response-start', id: 'msg_01TrUnc8pQ3vXw6Lk2Hb9Rz', model: 'claude-sonnet-4-5-20250929', usage: usage(30, 0, 0, 1) },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'The answer is' },
      { type: 'error', error: { kind: 'api_error', message: 'upstream stream ended before message_stop' } },
    ]);
  });

  it('custom tool input unwrapped in one delta; namespaced name mapped back; no input → "{}"', () => {
    const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hi "there"\n*** End Patch';
    expect(decodeFixture('custom-namespace-tools.sse')).toEqual([
      { type: 'response-start', id: 'msg_01CstTl4Wq7mZx2Pn8Kb5Vd', model: 'claude-sonnet-4-5-20250929', usage: usage(1924, 1024, 0, 2) },
      { type: 'tool-call-start', block: 0, id: 'toolu_01PaTcH9q2Xk7vL4mN8bW3sR', name: 'apply_patch', kind: 'custom' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: patch },
      { type: 'tool-call-end', block: 0, arguments: patch },
      { type: 'tool-call-start', block: 1, id: 'toolu_01SpWn3k8Lq2Vx7Zb4Nm9Tc', name: 'spawn', kind: 'function', namespace: 'multi_agent_v1' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"task": "write tests"}' },
      { type: 'tool-call-end', block: 1, arguments: '{"task": "write tests"}' },
      { type: 'tool-call-start', block: 2, id: 'toolu_01NoArGs5Hp8Qw2Xc6Vb3Lz', name: 'list_files', kind: 'function' },
      { type: 'tool-call-end', block: 2, arguments: '{}' },
      { type: 'usage', usage: usage(1924, 1024, 0, 77) },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'tool_use' } },
    ]);
  });

  for (const name of Object.keys(FIXTURE_REQUESTS)) {
    it(`${name}: identical IR events whatever byte offset splits the stream`, () => {
      const bytes = fixture(name);
      const req = FIXTURE_REQUESTS[name]!;
      const whole = decodeChunks(req, [bytes]);
      expectWellFormed(whole);
      for (let i = 0; i <= bytes.length; i++) {
        const split = decodeChunks(req, [bytes.subarray(0, i), bytes.subarray(i)]);
        if (JSON.stringify(split) !== JSON.stringify(whole)) expect(split, `split at byte ${i}`).toEqual(whole);
      }
    });
  }
});

describe('Messages event decoder: frames and edge cases', () => {
  const decode = (text: string, req: IrRequest = request()) => decodeChunks(req, [text]);
  const terminal = (events: IrEvent[]) => events[events.length - 1];

  it('stop reasons: stop_sequence carries the sequence; context window → context_overflow; new values → other', () => {
    expect(terminal(decode(textOnly('stop_sequence', '\n\nHuman:')))).toEqual({
      type: 'finish',
      finish: { reason: 'stop_sequence', raw: 'stop_sequence', stopSequence: '\n\nHuman:' },
    });
    expect(terminal(decode(textOnly('max_tokens')))).toEqual({ type: 'finish', finish: { reason: 'max_tokens', raw: 'max_tokens' } });
    expect(terminal(decode(textOnly('pause_turn')))).toEqual({ type: 'finish', finish: { reason: 'pause_turn', raw: 'pause_turn' } });
    expect(terminal(decode(textOnly('refusal')))).toEqual({ type: 'finish', finish: { reason: 'refusal', raw: 'refusal' } });
    expect(terminal(decode(textOnly('model_context_window_exceeded')))).toEqual({
      type: 'finish',
      finish: { reason: 'context_overflow', raw: 'model_context_window_exceeded' },
    });
    expect(terminal(decode(textOnly('compaction')))).toEqual({ type: 'finish', finish: { reason: 'end_turn', raw: 'compaction' } });
    expect(terminal(decode(textOnly('brand_new_reason')))).toEqual({ type: 'finish', finish: { reason: 'other', raw: 'brand_new_reason' } });
    expect(terminal(decode(textOnly(null)))).toEqual({ type: 'finish', finish: { reason: 'other', raw: null } });
  });

  it('message_delta usage overwrites (cumulative totals); null counters keep the earlier value', () => {
    const events = decode(
      sse(
        messageStart({ input_tokens: 100, cache_creation_input_tokens: 7, cache_read_input_tokens: 50, output_tokens: 1 }),
        { type: 'message_delta', delta: { stop_reason: null, stop_sequence: null }, usage: { output_tokens: 30 } },
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { input_tokens: null, cache_read_input_tokens: 60, output_tokens: 42, output_tokens_details: { thinking_tokens: 9 } },
        },
        { type: 'message_stop' },
      ),
    );
    expect(events.find((e) => e.type === 'usage')).toEqual({ type: 'usage', usage: usage(100 + 7 + 60, 60, 7, 42, 9) });
    expect(terminal(events)).toEqual({ type: 'finish', finish: { reason: 'end_turn', raw: 'end_turn' } });
  });

  it('a frame that is not JSON becomes an error event and ends the stream', () => {
    const events = decode(sse(messageStart()) + 'event: content_block_start\ndata: {"type":"content_bl\n\n' + textOnly('end_turn'));
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ type: 'error', error: { kind: 'api_error' } });
    expect((events[1] as Extract<IrEvent, { type: 'error' }>).error.message).toContain('not JSON');
  });

  it('in-stream "prompt is too long" is a context overflow, wording kept; other error types map by type', () => {
    const tooLong = decode(
      sse(messageStart(), { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } }),
    );
    expect(terminal(tooLong)).toEqual({ type: 'error', error: { kind: 'context_overflow', message: 'prompt is too long: 210000 tokens > 200000 maximum' } });
    const kinds = ['rate_limit_error', 'api_error', 'timeout_error', 'overloaded_error', 'something_new_error'].map((type) => {
      const ev = terminal(decode(sse({ type: 'error', error: { type, message: 'm' } })));
      return ev?.type === 'error' ? ev.error.kind : undefined;
    });
    expect(kinds).toEqual(['rate_limit', 'api_error', 'timeout', 'overloaded', 'api_error']);
  });

  it('frames after message_stop or an error are ignored, and end() adds nothing', () => {
    const afterStop = decode(textOnly('end_turn') + textOnly('max_tokens'));
    expect(afterStop.filter((e) => e.type === 'finish')).toHaveLength(1);
    expect(afterStop.filter((e) => e.type === 'response-start')).toHaveLength(1);
    const afterError = decode(sse({ type: 'error', error: { type: 'api_error', message: 'boom' } }) + textOnly('end_turn'));
    expect(afterError).toEqual([{ type: 'error', error: { kind: 'api_error', message: 'boom' } }]);
  });

  it('tool ids outside the portable pattern are re-encoded reversibly; input given whole at start still arrives', () => {
    const events = decode(
      sse(
        messageStart(),
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'functions.get_weather:0', name: 'get_weather', input: { city: 'Rome' } } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } },
        { type: 'message_stop' },
      ),
      request({ tools: [WEATHER] }),
    );
    expect(events.slice(1, 4)).toEqual([
      { type: 'tool-call-start', block: 0, id: toCallerId('functions.get_weather:0'), name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '{"city":"Rome"}' },
      { type: 'tool-call-end', block: 0, arguments: '{"city":"Rome"}' },
    ]);
    expect(toCallerId('functions.get_weather:0')).toMatch(/^syc_/);
  });

  it('a tool name the request does not define passes through as a function call', () => {
    const events = decode(
      sse(
        messageStart(),
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'mystery', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } },
        { type: 'message_stop' },
      ),
    );
    expect(events[1]).toEqual({ type: 'tool-call-start', block: 0, id: 'toolu_1', name: 'mystery', kind: 'function' });
  });

  it('a custom tool whose input is truncated JSON keeps the raw text rather than nothing', () => {
    const events = decode(
      sse(
        messageStart(),
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_2', name: 'apply_patch', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"input": "*** Begin' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 5 } },
        { type: 'message_stop' },
      ),
      request({ tools: RESPONSES_TOOLS }),
    );
    expect(events.slice(1, 4)).toEqual([
      { type: 'tool-call-start', block: 0, id: 'toolu_2', name: 'apply_patch', kind: 'custom' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '{"input": "*** Begin' },
      { type: 'tool-call-end', block: 0, arguments: '{"input": "*** Begin' },
    ]);
  });
});
