import { describe, expect, it } from 'vitest';
import { responsesDriver } from '../../../../src/drivers/openai-responses/index.js';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import { toCallerId } from '../../../../src/ir/tool-ids.js';
import type { IrEvent, IrRequest } from '../../../../src/ir/types.js';
import { decodeChunks, fixtureBytes, request, unstableSplits } from './support.js';

const decode = (name: string, req?: IrRequest) => decodeChunks([fixtureBytes(name)], req);

/** Frames written by hand (data lines only), for the lenient paths. */
function decodeFrames(frames: unknown[], req?: IrRequest): IrEvent[] {
  const text = frames.map((f) => 'data: ' + (typeof f === 'string' ? f : JSON.stringify(f)) + '\n\n').join('');
  return decodeChunks([Buffer.from(text, 'utf8')], req);
}

const zeroUsage = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 };

const namespaceRequest = request({
  tools: [
    { name: 'spawn_agent', kind: 'function', namespace: 'multi_agent_v1', inputSchema: { type: 'object' } },
    { name: 'mcp.tracker.create_issue_in_the_tracker_for_the_current_project_with_labels', kind: 'function' },
  ],
});

const FIXTURES: [string, IrRequest | undefined][] = [
  ['text-reply.sse', undefined],
  ['reasoning-tool-text.sse', undefined],
  ['custom-tool-call.sse', undefined],
  ['incomplete-max-tokens.sse', undefined],
  ['failed.sse', undefined],
  ['error-flat.sse', undefined],
  ['error-nested.sse', undefined],
  ['truncated.sse', undefined],
  ['parallel-calls.sse', undefined],
  ['refusal.sse', undefined],
  ['namespace-call.sse', namespaceRequest],
  ['compat-server.sse', undefined],
];

describe('responses decode-events: fixtures', () => {
  it('text reply (responses.md §9 a)', () => {
    expect(decode('text-reply.sse')).toEqual([
      { type: 'response-start', id: 'resp_68b1f0c2a4e08190', model: 'gpt-5' },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Hello' },
      { type: 'text-delta', block: 0, text: ' there!' },
      { type: 'text-end', block: 0 },
      { type: 'usage', usage: { inputTokens: 19, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 6, reasoningTokens: 0 } },
      { type: 'finish', finish: { reason: 'end_turn', raw: 'completed' } },
    ]);
  });

  it('reasoning → function call → text (responses.md §9 b)', () => {
    expect(decode('reasoning-tool-text.sse')).toEqual([
      { type: 'response-start', id: 'resp_9c', model: 'gpt-5' },
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-delta', block: 0, text: '**Checking weather** I need' },
      { type: 'reasoning-delta', block: 0, text: ' the tool for Paris.' },
      {
        type: 'reasoning-end',
        block: 0,
        carry: {
          family: 'openai',
          id: 'rs_9c_0',
          encryptedContent: 'gAAAAABo9c0_opaque+state/==',
          summary: [{ type: 'summary_text', text: '**Checking weather** I need the tool for Paris.' }],
        },
      },
      { type: 'tool-call-start', block: 1, id: 'call_Wq2Lx7', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '"Paris"}' },
      { type: 'tool-call-end', block: 1, arguments: '{"city":"Paris"}' },
      { type: 'text-start', block: 2 },
      { type: 'text-delta', block: 2, text: 'Checking Paris now.' },
      { type: 'text-end', block: 2 },
      { type: 'usage', usage: { inputTokens: 81, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 142, reasoningTokens: 96 } },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'completed' } },
    ]);
  });

  it('custom tool call with two summary parts, a keep-alive comment and non-ASCII input', () => {
    const patch = '*** Begin Patch\n*** Update File: greet.txt\n-Hello\n+Grüße, café ☕\n*** End Patch';
    expect(decode('custom-tool-call.sse')).toEqual([
      { type: 'response-start', id: 'resp_c7', model: 'gpt-5-codex' },
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-delta', block: 0, text: '**Reading the file**' },
      { type: 'reasoning-part-break', block: 0 },
      { type: 'reasoning-delta', block: 0, text: '**Patching** the greeting.' },
      {
        type: 'reasoning-end',
        block: 0,
        carry: {
          family: 'openai',
          id: 'rs_c7_0',
          encryptedContent: 'gAAAAABoc7',
          summary: [
            { type: 'summary_text', text: '**Reading the file**' },
            { type: 'summary_text', text: '**Patching** the greeting.' },
          ],
        },
      },
      { type: 'tool-call-start', block: 1, id: 'call_Pz81', name: 'apply_patch', kind: 'custom' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '*** Begin Patch\n*** Update File: greet.txt\n' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '-Hello\n+Grüße, ' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: 'café ☕\n*** End Patch' },
      { type: 'tool-call-end', block: 1, arguments: patch },
      { type: 'usage', usage: { inputTokens: 5120, cacheReadTokens: 4096, cacheWriteTokens: 512, outputTokens: 230, reasoningTokens: 128 } },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'completed' } },
    ]);
  });

  it('incomplete: closes the open text block, then usage and max_tokens', () => {
    expect(decode('incomplete-max-tokens.sse')).toEqual([
      { type: 'response-start', id: 'resp_1a', model: 'gpt-5' },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'The first' },
      { type: 'text-delta', block: 0, text: ' part of' },
      { type: 'text-end', block: 0 },
      { type: 'usage', usage: { inputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 16, reasoningTokens: 0 } },
      { type: 'finish', finish: { reason: 'max_tokens', raw: 'max_output_tokens' } },
    ]);
  });

  it('response.failed becomes an error event after what streamed', () => {
    expect(decode('failed.sse')).toEqual([
      { type: 'response-start', id: 'resp_1b', model: 'gpt-5' },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'partial answer' },
      { type: 'error', error: { kind: 'api_error', message: 'Upstream connection reset' } },
    ]);
  });

  it('flat error event (OpenAI SDK shape) → rate_limit', () => {
    expect(decode('error-flat.sse')).toEqual([
      { type: 'response-start', id: 'resp_e1', model: 'gpt-5' },
      { type: 'error', error: { kind: 'rate_limit', message: 'Rate limit reached for gpt-5 on tokens per min (TPM)' } },
    ]);
  });

  it('nested error event (Open Responses shape) → context_overflow, never a 5xx kind', () => {
    expect(decode('error-nested.sse')).toEqual([
      { type: 'response-start', id: 'resp_e2', model: 'gpt-5' },
      {
        type: 'error',
        error: { kind: 'context_overflow', message: 'Your input exceeds the context window of this model. Please adjust your input and try again.' },
      },
    ]);
  });

  it('a stream that ends without a terminal event reports an error', () => {
    expect(decode('truncated.sse')).toEqual([
      { type: 'response-start', id: 'resp_t1', model: 'gpt-5' },
      { type: 'tool-call-start', block: 0, id: 'call_T1', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '{"city":"Par' },
      { type: 'error', error: { kind: 'api_error', message: 'upstream stream ended before response.completed' } },
    ]);
  });

  it('two parallel calls: a repeated call id is replaced by a unique synthesized one', () => {
    const events = decode('parallel-calls.sse');
    const starts = events.filter((e) => e.type === 'tool-call-start');
    expect(starts).toEqual([
      { type: 'tool-call-start', block: 0, id: 'call_A1', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-start', block: 1, id: 'call_resp_p2_1', name: 'get_weather', kind: 'function' },
    ]);
    expect(foldEvents(events).content.map((p) => p.type === 'tool-call' && p.arguments)).toEqual(['{"city":"Paris"}', '{"city":"Rome"}']);
    expect(events.at(-1)).toEqual({ type: 'finish', finish: { reason: 'tool_use', raw: 'completed' } });
  });

  it('refusal part → refusal text block and refusal finish', () => {
    expect(decode('refusal.sse')).toEqual([
      { type: 'response-start', id: 'resp_rf', model: 'gpt-5' },
      { type: 'text-start', block: 0, refusal: true },
      { type: 'text-delta', block: 0, text: "I can't help" },
      { type: 'text-delta', block: 0, text: ' with that.' },
      { type: 'text-end', block: 0 },
      { type: 'usage', usage: { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 7, reasoningTokens: 0 } },
      { type: 'finish', finish: { reason: 'refusal', raw: 'completed' } },
    ]);
  });

  it('built-in items are skipped (blocks stay 0,1), namespaces kept, shortened names mapped back', () => {
    expect(decode('namespace-call.sse', namespaceRequest)).toEqual([
      { type: 'response-start', id: 'resp_ns', model: 'gpt-5' },
      { type: 'tool-call-start', block: 0, id: 'call_N5', name: 'spawn_agent', kind: 'function', namespace: 'multi_agent_v1' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '{"task":"triage"}' },
      { type: 'tool-call-end', block: 0, arguments: '{"task":"triage"}' },
      {
        type: 'tool-call-start',
        block: 1,
        id: 'call_L6',
        name: 'mcp.tracker.create_issue_in_the_tracker_for_the_current_project_with_labels',
        kind: 'function',
      },
      // No argument deltas streamed: the full arguments arrive once, then the end repeats them.
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{}' },
      { type: 'tool-call-end', block: 1, arguments: '{}' },
      { type: 'usage', usage: { inputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 40, reasoningTokens: 0 } },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'completed' } },
    ]);
  });

  it('compatible server: text without content_part events, a call without .added or call_id, [DONE]', () => {
    expect(decode('compat-server.sse')).toEqual([
      { type: 'response-start', id: 'resp_sl', model: 'local-model' },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Sure, ' },
      { type: 'text-delta', block: 0, text: 'calling it.' },
      { type: 'text-end', block: 0 },
      { type: 'tool-call-start', block: 1, id: 'call_resp_sl_1', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"city":"Oslo"}' },
      { type: 'tool-call-end', block: 1, arguments: '{"city":"Oslo"}' },
      { type: 'usage', usage: zeroUsage },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'completed' } },
    ]);
  });

  it.each(FIXTURES)('%s decodes identically when split in two at every byte offset', (name, req) => {
    const bytes = fixtureBytes(name);
    expect(decode(name, req).length).toBeGreaterThan(1);
    expect(unstableSplits(bytes, req)).toEqual([]);
  });

  it('streamed and non-streamed decoding agree on the same response', () => {
    for (const name of ['reasoning-tool-text.sse', 'custom-tool-call.sse', 'refusal.sse']) {
      const text = fixtureBytes(name).toString('utf8');
      const last = text.trimEnd().split('\n').at(-1)!;
      const completed = JSON.parse(last.slice('data: '.length)) as { response: unknown };
      expect(responsesDriver.decodeResult(completed.response, request()), name).toEqual(foldEvents(decode(name)));
    }
  });
});

describe('responses decode-events: frames', () => {
  const created = { type: 'response.created', response: { id: 'resp_x', model: 'm', output: [] } };
  const completed = { type: 'response.completed', response: { id: 'resp_x', status: 'completed', usage: null } };

  it('a frame that is not JSON is an error, and later frames are ignored', () => {
    expect(decodeFrames([created, '{"type":"response.output_text.delta",', completed])).toEqual([
      { type: 'response-start', id: 'resp_x', model: 'm' },
      { type: 'error', error: { kind: 'api_error', message: 'upstream sent a stream frame that is not JSON: {"type":"response.output_text.delta",' } },
    ]);
  });

  it('a cut-off last frame (no blank line, incomplete JSON) is an error, not a success', () => {
    const events = decodeChunks([Buffer.from('data: ' + JSON.stringify(created) + '\n\ndata: {"type":"response.comp', 'utf8')]);
    expect(events.at(-1)?.type).toBe('error');
    expect(events.some((e) => e.type === 'finish')).toBe(false);
  });

  it('[DONE] before the terminal event does not count as one', () => {
    expect(decodeFrames([created, '[DONE]']).at(-1)).toEqual({
      type: 'error',
      error: { kind: 'api_error', message: 'upstream stream ended before response.completed' },
    });
  });

  it('a bare {"error":{…}} frame is an error whatever its type', () => {
    expect(decodeFrames([created, { error: { message: 'quota gone', code: 'insufficient_quota' } }]).at(-1)).toEqual({
      type: 'error',
      error: { kind: 'billing', message: 'quota gone' },
    });
  });

  it('an untyped frame under `event: error` is an error', () => {
    const text = 'data: ' + JSON.stringify(created) + '\n\nevent: error\ndata: {"code":"server_is_overloaded","message":"busy"}\n\n';
    expect(decodeChunks([Buffer.from(text, 'utf8')]).at(-1)).toEqual({ type: 'error', error: { kind: 'overloaded', message: 'busy' } });
  });

  it('response.failed codes map to kinds', () => {
    const failed = (code: string) =>
      decodeFrames([created, { type: 'response.failed', response: { id: 'resp_x', status: 'failed', error: { code, message: 'm' } } }]).at(-1);
    expect(failed('rate_limit_exceeded')).toEqual({ type: 'error', error: { kind: 'rate_limit', message: 'm' } });
    expect(failed('server_is_overloaded')).toEqual({ type: 'error', error: { kind: 'overloaded', message: 'm' } });
    expect(failed('slow_down')).toEqual({ type: 'error', error: { kind: 'overloaded', message: 'm' } });
    expect(failed('context_length_exceeded')).toEqual({ type: 'error', error: { kind: 'context_overflow', message: 'm' } });
    expect(failed('server_error')).toEqual({ type: 'error', error: { kind: 'api_error', message: 'm' } });
  });

  it('incomplete reasons: content_filter → refusal, others → end_turn with the raw reason', () => {
    const incomplete = (reason: string | null) =>
      decodeFrames([created, { type: 'response.incomplete', response: { id: 'resp_x', status: 'incomplete', incomplete_details: { reason } } }]).at(-1);
    expect(incomplete('content_filter')).toEqual({ type: 'finish', finish: { reason: 'refusal', raw: 'content_filter' } });
    expect(incomplete('max_messages')).toEqual({ type: 'finish', finish: { reason: 'end_turn', raw: 'max_messages' } });
    expect(incomplete(null)).toEqual({ type: 'finish', finish: { reason: 'end_turn', raw: 'incomplete' } });
  });

  it('reasoning_text deltas feed the block when no summary streams; summary wins when it streams first', () => {
    const rs = (extra: unknown[]) =>
      decodeFrames([
        created,
        { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } },
        ...extra,
        { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } },
        completed,
      ]).filter((e) => e.type === 'reasoning-delta');
    const text = { type: 'response.reasoning_text.delta', output_index: 0, content_index: 0, delta: 'raw thought' };
    const summary = { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 0, delta: 'summary' };
    expect(rs([text])).toEqual([{ type: 'reasoning-delta', block: 0, text: 'raw thought' }]);
    expect(rs([summary, text])).toEqual([{ type: 'reasoning-delta', block: 0, text: 'summary' }]);
  });

  it('a reasoning item that streamed no text emits its summary at done; no encrypted content → null carry', () => {
    const events = decodeFrames([
      created,
      { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_2', type: 'reasoning', summary: [] } },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: { id: 'rs_2', type: 'reasoning', summary: [{ type: 'summary_text', text: 'A.' }, { type: 'summary_text', text: 'B.' }] },
      },
      completed,
    ]);
    expect(foldEvents(events).content).toEqual([
      {
        type: 'reasoning',
        text: 'A.\n\nB.',
        carry: { family: 'openai', id: 'rs_2', encryptedContent: null, summary: [{ type: 'summary_text', text: 'A.' }, { type: 'summary_text', text: 'B.' }] },
      },
    ]);
  });

  it('a summary part with no text does not cause a leading part break', () => {
    const events = decodeFrames([
      created,
      { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_3', type: 'reasoning', summary: [] } },
      { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 1, delta: 'only part' },
      completed,
    ]);
    expect(events.filter((e) => e.type.startsWith('reasoning'))).toEqual([
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-delta', block: 0, text: 'only part' },
      { type: 'reasoning-end', block: 0 },
    ]);
  });

  it('a non-portable upstream call id is re-encoded reversibly', () => {
    const events = decodeFrames([
      created,
      { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', call_id: 'functions.get_weather:0', name: 'get_weather', arguments: '{}' } },
      completed,
    ]);
    expect(events[1]).toEqual({ type: 'tool-call-start', block: 0, id: toCallerId('functions.get_weather:0'), name: 'get_weather', kind: 'function' });
    expect(toCallerId('functions.get_weather:0')).not.toBe('functions.get_weather:0');
  });

  it('a terminal response whose items never streamed is replayed from its output', () => {
    const events = decodeFrames([
      created,
      {
        type: 'response.completed',
        response: {
          id: 'resp_x',
          status: 'completed',
          output: [{ type: 'message', id: 'msg_1', content: [{ type: 'output_text', text: 'only in the snapshot' }] }],
          usage: { input_tokens: 3, output_tokens: 4 },
        },
      },
    ]);
    expect(foldEvents(events).content).toEqual([{ type: 'text', text: 'only in the snapshot' }]);
  });

  it('a call cut off by response.incomplete ends with the deltas it had', () => {
    const events = decodeFrames([
      created,
      { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '' } },
      { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{"a":' },
      { type: 'response.incomplete', response: { id: 'resp_x', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } },
    ]);
    expect(events.slice(1)).toEqual([
      { type: 'tool-call-start', block: 0, id: 'call_1', name: 'f', kind: 'function' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '{"a":' },
      { type: 'tool-call-end', block: 0 },
      { type: 'usage', usage: zeroUsage },
      { type: 'finish', finish: { reason: 'max_tokens', raw: 'max_output_tokens' } },
    ]);
  });
});
