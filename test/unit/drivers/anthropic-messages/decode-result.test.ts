import { describe, expect, it } from 'vitest';
import { anthropicDriver } from '../../../../src/drivers/anthropic-messages/index.js';
import { GatewayError } from '../../../../src/errors.js';
import type { ToolDefinition } from '../../../../src/ir/types.js';
import { fixtureJson, request } from './support.js';

const RESPONSES_TOOLS: ToolDefinition[] = [
  { name: 'apply_patch', kind: 'custom', description: 'Apply a patch' },
  { name: 'spawn', namespace: 'multi_agent_v1', kind: 'function', inputSchema: { type: 'object', properties: { task: { type: 'string' } } } },
];

describe('decodeResult', () => {
  it('messages.md §9 Message: thinking carry byte-exact, text, tool call with JSON arguments, split usage summed', () => {
    const result = anthropicDriver.decodeResult(fixtureJson('message-thinking-text-tool-use.json'), request());
    expect(result).toEqual({
      id: 'msg_01XbK2Qm7sVfJ9aR3tYp4LcD',
      model: 'claude-sonnet-4-5-20250929',
      content: [
        {
          type: 'reasoning',
          text: 'The user wants Paris weather; call the tool.',
          carry: {
            family: 'anthropic',
            block: { type: 'thinking', thinking: 'The user wants Paris weather; call the tool.', signature: 'EqoBCkgIBhABGAIiQ…' },
          },
        },
        { type: 'text', text: 'Let me check the current weather in Paris.' },
        { type: 'tool-call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}', kind: 'function' },
      ],
      finish: { reason: 'tool_use', raw: 'tool_use' },
      usage: { inputTokens: 2560, cacheReadTokens: 2048, cacheWriteTokens: 0, outputTokens: 96, reasoningTokens: 0 },
    });
  });

  it('server tool blocks skipped; redacted thinking; custom input unwrapped; namespace restored; stop sequence kept', () => {
    const result = anthropicDriver.decodeResult(fixtureJson('message-server-tools-stop-sequence.json'), request({ tools: RESPONSES_TOOLS }));
    expect(result.content).toEqual([
      { type: 'reasoning', text: '', carry: { family: 'anthropic', block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix…' } } },
      { type: 'text', text: 'Counting: 1, 2, 3' },
      { type: 'tool-call', id: 'toolu_01PaTcH9q2Xk7vL4mN8bW3sR', name: 'apply_patch', arguments: '*** Begin Patch\n*** End Patch', kind: 'custom' },
      {
        type: 'tool-call',
        id: 'toolu_01SpWn3k8Lq2Vx7Zb4Nm9Tc',
        name: 'spawn',
        namespace: 'multi_agent_v1',
        arguments: '{"task":"write tests"}',
        kind: 'function',
      },
    ]);
    expect(result.finish).toEqual({ reason: 'stop_sequence', raw: 'stop_sequence', stopSequence: ', 4' });
    expect(result.usage).toEqual({ inputTokens: 360, cacheReadTokens: 50, cacheWriteTokens: 300, outputTokens: 40, reasoningTokens: 12 });
  });

  it('an error envelope answered with HTTP 200 throws its mapped kind', () => {
    const body = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_1' };
    expect(() => anthropicDriver.decodeResult(body, request())).toThrow(expect.objectContaining({ kind: 'overloaded', message: 'Overloaded' }));
  });

  it('a body that is not a Message throws api_error', () => {
    for (const body of [null, 'text', { id: 'msg_1', type: 'message' }]) {
      let caught: unknown;
      try {
        anthropicDriver.decodeResult(body, request());
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(GatewayError);
      expect((caught as GatewayError).kind).toBe('api_error');
    }
  });

  it('an empty content array and a missing usage are a valid, empty result', () => {
    const result = anthropicDriver.decodeResult({ id: 'msg_2', type: 'message', model: 'm', content: [], stop_reason: 'end_turn', stop_sequence: null }, request());
    expect(result.content).toEqual([]);
    expect(result.usage).toEqual({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 });
    expect(result.finish).toEqual({ reason: 'end_turn', raw: 'end_turn' });
  });
});
