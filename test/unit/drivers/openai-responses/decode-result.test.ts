import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/errors.js';
import { responsesDriver } from '../../../../src/drivers/openai-responses/index.js';
import { toCallerId } from '../../../../src/ir/tool-ids.js';
import { fixtureJson, request } from './support.js';

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a GatewayError');
}

describe('responses decodeResult', () => {
  it('reasoning, message and call items in order, with carry, caller-safe id, usage and tool_use', () => {
    expect(responsesDriver.decodeResult(fixtureJson('result-reasoning-tool.json'), request())).toEqual({
      id: 'resp_j',
      model: 'gpt-5',
      content: [
        {
          type: 'reasoning',
          text: 'First part.\n\nSecond part.',
          carry: {
            family: 'openai',
            id: 'rs_j_0',
            encryptedContent: 'gAAAAABoJ0',
            summary: [
              { type: 'summary_text', text: 'First part.' },
              { type: 'summary_text', text: 'Second part.' },
            ],
          },
        },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: toCallerId('functions.get_weather:0'), name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
      ],
      finish: { reason: 'tool_use', raw: 'completed' },
      usage: { inputTokens: 200, cacheReadTokens: 128, cacheWriteTokens: 0, outputTokens: 90, reasoningTokens: 64 },
    });
  });

  it('incomplete with content_filter → refusal finish, partial text kept', () => {
    const result = responsesDriver.decodeResult(fixtureJson('result-incomplete.json'), request());
    expect(result.content).toEqual([{ type: 'text', text: 'Here is how' }]);
    expect(result.finish).toEqual({ reason: 'refusal', raw: 'content_filter' });
    expect(result.usage.outputTokens).toBe(3);
  });

  it('failed → GatewayError with the kind and code of response.error', () => {
    const err = thrown(() => responsesDriver.decodeResult(fixtureJson('result-failed.json'), request()));
    expect(err.kind).toBe('rate_limit');
    expect(err.code).toBe('rate_limit_exceeded');
    expect(err.message).toBe('Rate limit reached for requests');
  });

  it('custom calls and refusals; built-in items skipped; a shortened name mapped back', () => {
    const long = 'mcp.tracker.create_issue_in_the_tracker_for_the_current_project_with_labels';
    const result = responsesDriver.decodeResult(
      {
        id: 'resp_k',
        model: 'gpt-5-codex',
        status: 'completed',
        output: [
          { id: 'ws_1', type: 'web_search_call', status: 'completed' },
          { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'Not that.' }] },
          { id: 'ctc_1', type: 'custom_tool_call', call_id: 'call_C', name: 'apply_patch', input: 'patch body' },
          { id: 'fc_1', type: 'function_call', call_id: 'call_F', name: 'mcp_tracker_create_issue_in_the_tracker_for_the_current_7a1fe454', arguments: '{}' },
        ],
        usage: null,
      },
      request({ tools: [{ name: 'apply_patch', kind: 'custom' }, { name: long, kind: 'function' }] }),
    );
    expect(result.content).toEqual([
      { type: 'text', text: 'Not that.', refusal: true },
      { type: 'tool-call', id: 'call_C', name: 'apply_patch', arguments: 'patch body', kind: 'custom' },
      { type: 'tool-call', id: 'call_F', name: long, arguments: '{}', kind: 'function' },
    ]);
    expect(result.finish.reason).toBe('tool_use');
    expect(result.usage).toEqual({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 });
  });

  it('malformed bodies and unfinished statuses are api_error', () => {
    expect(thrown(() => responsesDriver.decodeResult('nope', request())).kind).toBe('api_error');
    expect(thrown(() => responsesDriver.decodeResult([], request())).kind).toBe('api_error');
    expect(thrown(() => responsesDriver.decodeResult({ id: 'r', status: 'completed' }, request())).kind).toBe('api_error');
    expect(thrown(() => responsesDriver.decodeResult({ id: 'r', status: 'cancelled', output: [] }, request())).message).toContain('cancelled');
    expect(thrown(() => responsesDriver.decodeResult({ id: 'r', status: 'in_progress', output: [] }, request())).kind).toBe('api_error');
  });

  it('an error envelope answered with 200 is still an error', () => {
    const err = thrown(() => responsesDriver.decodeResult({ error: { code: 'context_length_exceeded', message: 'too long' } }, request()));
    expect(err.kind).toBe('context_overflow');
  });
});
