import { describe, expect, it } from 'vitest';
import { chatDriver } from '../../../../src/drivers/openai-chat/index.js';
import { GatewayError } from '../../../../src/errors.js';
import { toCallerId } from '../../../../src/ir/tool-ids.js';
import type { ToolDefinition } from '../../../../src/ir/types.js';
import { fixtureJson, request } from './support.js';

const TOOLS: ToolDefinition[] = [
  { name: 'get_weather', kind: 'function' },
  { name: 'apply_patch', kind: 'custom' },
  { name: 'spawn', namespace: 'multi_agent_v1', kind: 'function' },
];

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a GatewayError');
}

describe('chat decodeResult', () => {
  it('reasoning_content first (with a chat carry), then text; DeepSeek usage', () => {
    expect(chatDriver.decodeResult(fixtureJson('completion-reasoning.json'), request())).toEqual({
      id: '0f3d',
      model: 'deepseek-chat',
      content: [
        { type: 'reasoning', text: 'Compare the decimals: 0.8 > 0.11.', carry: { family: 'chat', text: 'Compare the decimals: 0.8 > 0.11.' } },
        { type: 'text', text: '9.8 is larger.' },
      ],
      finish: { reason: 'end_turn', raw: 'stop' },
      usage: { inputTokens: 20, cacheReadTokens: 16, cacheWriteTokens: 0, outputTokens: 40, reasoningTokens: 30 },
    });
  });

  it('tool calls: unique portable ids, object arguments, custom unwrap, namespace restored, stop → tool_use', () => {
    const result = chatDriver.decodeResult(fixtureJson('completion-tools.json'), request({ tools: TOOLS }));
    expect(result.content).toEqual([
      { type: 'text', text: 'Running three tools.' },
      { type: 'tool-call', id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
      { type: 'tool-call', id: 'call_chatcmpl-C3x9a1b2c3_1', name: 'get_weather', arguments: '{"city":"Rome"}', kind: 'function' },
      { type: 'tool-call', id: toCallerId('functions.apply_patch:2'), name: 'apply_patch', arguments: '*** Begin Patch\n*** End Patch', kind: 'custom' },
      { type: 'tool-call', id: 'call_chatcmpl-C3x9a1b2c3_3', name: 'spawn', arguments: '{}', kind: 'function', namespace: 'multi_agent_v1' },
    ]);
    expect(result.finish).toEqual({ reason: 'tool_use', raw: 'stop' });
    expect(result.usage).toEqual({ inputTokens: 81, cacheReadTokens: 64, cacheWriteTokens: 0, outputTokens: 18, reasoningTokens: 0 });
  });

  it('message.refusal becomes a refusal text part', () => {
    const result = chatDriver.decodeResult(fixtureJson('completion-refusal.json'), request());
    expect(result.content).toEqual([{ type: 'text', text: "I can't help with that.", refusal: true }]);
  });

  it('length → max_tokens; content as text parts; missing usage → zeros', () => {
    const result = chatDriver.decodeResult(
      { id: 'x', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, finish_reason: 'length' }] },
      request(),
    );
    expect(result.content).toEqual([{ type: 'text', text: 'ab' }]);
    expect(result.finish).toEqual({ reason: 'max_tokens', raw: 'length' });
    expect(result.usage.outputTokens).toBe(0);
  });

  it('malformed bodies and HTTP-200 error bodies throw GatewayErrors', () => {
    expect(thrown(() => chatDriver.decodeResult('nope', request())).kind).toBe('api_error');
    expect(thrown(() => chatDriver.decodeResult({ id: 'x', choices: [] }, request())).kind).toBe('api_error');
    const err = thrown(() => chatDriver.decodeResult({ error: { code: 429, message: 'slow down' } }, request()));
    expect([err.kind, err.message, err.upstreamStatus]).toEqual(['rate_limit', 'slow down', 429]);
    const failed = thrown(() => chatDriver.decodeResult({ id: 'x', choices: [{ message: { content: 'a' }, finish_reason: 'error' }] }, request()));
    expect(failed.kind).toBe('api_error');
  });
});
