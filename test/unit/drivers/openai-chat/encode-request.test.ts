import { describe, expect, it } from 'vitest';
import { chatDriver } from '../../../../src/drivers/openai-chat/index.js';
import { reasoningEffort } from '../../../../src/drivers/openai-chat/encode-request.js';
import type { DriverTarget } from '../../../../src/drivers/types.js';
import { GatewayError } from '../../../../src/errors.js';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import type { IrRequest, ToolDefinition, Turn, Warning } from '../../../../src/ir/types.js';
import { decodeChunks, request, target } from './support.js';

function encode(req: IrRequest, t: DriverTarget = target(), stream = false) {
  const warnings: Warning[] = [];
  const encoded = chatDriver.encodeRequest(req, t, stream, warnings);
  return { ...encoded, json: JSON.parse(encoded.body) as Record<string, any>, warnings };
}

const WEATHER: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather',
  kind: 'function',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('chat encodeRequest', () => {
  it('plain request: path, headers, minimal body', () => {
    const { path, headers, json, warnings } = encode(request(), { ...target(), headers: { 'x-extra': '1', authorization: 'Bearer override' } });
    expect(path).toBe('/chat/completions');
    expect(headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer override', 'x-extra': '1' });
    expect(json).toEqual({ model: 'upstream-model', messages: [{ role: 'user', content: 'Hi' }] });
    expect(warnings).toEqual([]);
    expect(encode(request(), target({}, null)).headers).toEqual({ 'content-type': 'application/json' });
    expect(encode(request(), target()).headers.authorization).toBe('Bearer sk-test');
  });

  it('system texts become ONE leading message with the configured role', () => {
    const req = request({
      system: [
        { type: 'text', text: 'You are terse.' },
        { type: 'text', text: '' },
        { type: 'text', text: 'Answer in French.', cacheControl: { type: 'ephemeral' } },
      ],
    });
    expect(encode(req).json.messages).toEqual([
      { role: 'system', content: 'You are terse.\n\nAnswer in French.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(encode(req, target({ systemRole: 'developer' })).json.messages[0].role).toBe('developer');
  });

  it('multi-turn text conversation; several text parts join, empty text is dropped', () => {
    const turns: Turn[] = [
      { role: 'user', parts: [{ type: 'text', text: '<reminder>be nice</reminder>' }, { type: 'text', text: '' }, { type: 'text', text: 'Hello' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Hi!' }, { type: 'text', text: 'How can I help?' }] },
      { role: 'assistant', parts: [{ type: 'text', text: '' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
    ];
    expect(encode(request({ turns })).json.messages).toEqual([
      { role: 'user', content: '<reminder>be nice</reminder>\nHello' },
      { role: 'assistant', content: 'Hi!\nHow can I help?' },
      { role: 'user', content: 'Weather?' },
    ]);
  });

  it('tools and every tool_choice form', () => {
    const tools: ToolDefinition[] = [WEATHER, { name: 'noop', kind: 'function', strict: true }, { name: 'lookup', kind: 'function', strict: false, inputSchema: { type: 'object' } }];
    const base = encode(request({ tools }));
    expect(base.json.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: WEATHER.inputSchema } },
      { type: 'function', function: { name: 'noop', parameters: { type: 'object', properties: {} }, strict: true } },
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } },
    ]);
    expect(base.json).not.toHaveProperty('tool_choice');
    expect(base.json).not.toHaveProperty('parallel_tool_calls');
    expect(encode(request({ tools, toolChoice: { type: 'auto' } })).json.tool_choice).toBe('auto');
    expect(encode(request({ tools, toolChoice: { type: 'none' } })).json.tool_choice).toBe('none');
    expect(encode(request({ tools, toolChoice: { type: 'required' } })).json.tool_choice).toBe('required');
    expect(encode(request({ tools, toolChoice: { type: 'tool', name: 'get_weather' } })).json.tool_choice).toEqual({
      type: 'function',
      function: { name: 'get_weather' },
    });
    const allowed = encode(request({ tools, toolChoice: { type: 'allowed', mode: 'required', names: ['lookup', 'get_weather'] } })).json;
    expect(allowed.tools.map((t: any) => t.function.name)).toEqual(['get_weather', 'lookup']);
    expect(allowed.tool_choice).toBe('required');
    expect(encode(request({ tools, parallelToolCalls: false })).json.parallel_tool_calls).toBe(false);
    expect(encode(request({ tools, parallelToolCalls: true })).json).not.toHaveProperty('parallel_tool_calls');
    // Without tools, neither tool_choice nor parallel_tool_calls (servers reject them).
    const none = encode(request({ toolChoice: { type: 'auto' }, parallelToolCalls: false })).json;
    expect(none).not.toHaveProperty('tools');
    expect(none).not.toHaveProperty('tool_choice');
    expect(none).not.toHaveProperty('parallel_tool_calls');
  });

  it('namespaced and over-long tool names use the wire name both in tools and in tool_choice', () => {
    const tools: ToolDefinition[] = [{ name: 'spawn', namespace: 'multi_agent_v1', kind: 'function' }, { name: 'mcp.server.' + 'x'.repeat(80), kind: 'function' }];
    const json = encode(request({ tools, toolChoice: { type: 'tool', name: 'spawn' } })).json;
    expect(json.tools[0].function.name).toBe('multi_agent_v1__spawn');
    expect(json.tool_choice.function.name).toBe('multi_agent_v1__spawn');
    expect(json.tools[1].function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('tool round trip: a non-portable upstream id comes back to the upstream unchanged', () => {
    const req = request({ tools: [WEATHER] });
    const events = decodeChunks(req, [
      'data: {"id":"r9","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"functions.get_weather:0","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Oslo\\"}"}}]},"finish_reason":"tool_calls"}]}\n\n',
      'data: [DONE]\n\n',
    ]);
    const result = foldEvents(events);
    const callPart = result.content[0]!;
    expect(callPart.type).toBe('tool-call');
    if (callPart.type !== 'tool-call') return;
    expect(callPart.id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(callPart.id).not.toBe('functions.get_weather:0');
    const next = request({
      tools: [WEATHER],
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo?' }] },
        { role: 'assistant', parts: [callPart] },
        { role: 'user', parts: [{ type: 'tool-result', callId: callPart.id, content: [{ type: 'text', text: '3°C' }], isError: false, kind: 'function' }] },
      ],
    });
    expect(encode(next).json.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'functions.get_weather:0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'functions.get_weather:0', content: '3°C' },
    ]);
  });

  it('parallel calls and their results: one assistant message, tool messages, then the user text; errors prefixed', () => {
    const turns: Turn[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Paris and Rome?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Checking both.' },
          { type: 'tool-call', id: 'toolu_A', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
          { type: 'tool-call', id: 'toolu_B', name: 'get_weather', arguments: '', kind: 'function' },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool-result', callId: 'toolu_B', content: [{ type: 'text', text: 'city missing' }], isError: true, kind: 'function' },
          { type: 'tool-result', callId: 'toolu_A', content: [{ type: 'text', text: 'Sunny' }, { type: 'text', text: '21°C' }], isError: false, kind: 'function' },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ];
    expect(encode(request({ turns, tools: [WEATHER] })).json.messages).toEqual([
      { role: 'user', content: 'Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          { id: 'toolu_A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_B', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_B', content: 'Error: city missing' },
      { role: 'tool', tool_call_id: 'toolu_A', content: 'Sunny\n21°C' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  it('orphan calls get a synthesized tool message; an orphan result becomes user text with a warning', () => {
    const turns: Turn[] = [
      { role: 'user', parts: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'tool-call', id: 'c1', name: 'f', arguments: '{}', kind: 'function' },
          { type: 'tool-call', id: 'c2', name: 'f', arguments: '{}', kind: 'function' },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'one' }], isError: false, kind: 'function' },
          { type: 'tool-result', callId: 'zz', content: [{ type: 'text', text: 'stray' }], isError: false, kind: 'function' },
        ],
      },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c3', name: 'f', arguments: '{}', kind: 'function' }] },
    ];
    const { json, warnings } = encode(request({ turns }));
    expect(json.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: 'Tool call was not completed.' },
      { role: 'user', content: 'Result of tool call zz:\nstray' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c3', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c3', content: 'Tool call was not completed.' },
    ]);
    expect(warnings.map((w) => w.field)).toEqual(['tool_result']);
  });

  it('images in a tool result move to a user message right after the tool messages, behind a marker naming the call', () => {
    const turns: Turn[] = [
      { role: 'user', parts: [{ type: 'text', text: 'screenshot please' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'call_S', name: 'screenshot', arguments: '{}', kind: 'function' }] },
      {
        role: 'user',
        parts: [
          {
            type: 'tool-result',
            callId: 'call_S',
            isError: false,
            kind: 'function',
            content: [
              { type: 'text', text: 'captured' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
            ],
          },
          { type: 'text', text: 'What do you see?' },
        ],
      },
    ];
    expect(encode(request({ turns })).json.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_S', content: 'captured' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '[Attachments from the result of tool call call_S]' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'text', text: 'What do you see?' },
        ],
      },
    ]);
  });

  it('user media: base64 and URL images (detail kept), base64 PDF, text document with title', () => {
    const turns: Turn[] = [
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Compare' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' }, detail: 'high' },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' } },
          { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0x' } },
          { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'Line one' }, title: 'notes.txt' },
        ],
      },
    ];
    expect(encode(request({ turns })).json.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ', detail: 'high' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          { type: 'file', file: { filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' } },
          { type: 'text', text: 'notes.txt\n\nLine one' },
        ],
      },
    ]);
  });

  it('provider-scoped file ids are rejected as invalid_request naming the part', () => {
    const turns: Turn[] = [{ role: 'user', parts: [{ type: 'text', text: 'see' }, { type: 'file', source: { kind: 'file-id', fileId: 'file-abc' } }] }];
    let caught: unknown;
    try {
      encode(request({ turns }));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).kind).toBe('invalid_request');
    expect((caught as GatewayError).param).toBe('messages.0.content.1');
  });

  describe('reasoning_content echo', () => {
    const turns = (withCalls: boolean): Turn[] => [
      { role: 'user', parts: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'shown', carry: { family: 'chat', text: 'chat reasoning' } },
          { type: 'reasoning', text: 'ignored', carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'claude thought', signature: 'sig' } } },
          { type: 'text', text: 'a' },
          ...(withCalls ? [{ type: 'tool-call' as const, id: 'c1', name: 'f', arguments: '{}', kind: 'function' as const }] : []),
        ],
      },
      ...(withCalls ? [{ role: 'user' as const, parts: [{ type: 'tool-result' as const, callId: 'c1', content: [], isError: false, kind: 'function' as const }] }] : []),
    ];

    it('on tool-call turns when the upstream wants it, from chat and Anthropic thinking carries', () => {
      const { json, warnings } = encode(request({ turns: turns(true) }), target({ echoReasoningContent: true }));
      expect(json.messages[1].reasoning_content).toBe('chat reasoning\n\nclaude thought');
      expect(json.messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: '' });
      expect(warnings).toEqual([]);
    });

    it('never on turns without tool calls, never when the flag is off', () => {
      expect(encode(request({ turns: turns(false) }), target({ echoReasoningContent: true })).json.messages[1]).toEqual({ role: 'assistant', content: 'a' });
      expect(encode(request({ turns: turns(true) })).json.messages[1]).not.toHaveProperty('reasoning_content');
    });

    it('opaque carries of other families are dropped with one warning per request (their text still echoes)', () => {
      const assistant: Turn = {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'summary text', carry: { family: 'openai', id: 'rs_1', encryptedContent: 'gAAAA', summary: [{ type: 'summary_text', text: 'summary text' }] } },
          { type: 'reasoning', text: '', carry: { family: 'anthropic', block: { type: 'redacted_thinking', data: 'xyz' } } },
          { type: 'tool-call', id: 'c1', name: 'f', arguments: '{}', kind: 'function' },
        ],
      };
      const { json, warnings } = encode(request({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'q' }] }, assistant, assistant] }), target({ echoReasoningContent: true }));
      expect(json.messages[1].reasoning_content).toBe('summary text');
      expect(warnings.map((w) => w.field)).toEqual(['reasoning']);
    });
  });

  it('the output limit goes to the configured field only', () => {
    const req = request({ maxOutputTokens: 1000 });
    const a = encode(req, target({ maxTokensField: 'max_tokens' })).json;
    expect(a.max_tokens).toBe(1000);
    expect(a).not.toHaveProperty('max_completion_tokens');
    const b = encode(req, target({ maxTokensField: 'max_completion_tokens' })).json;
    expect(b.max_completion_tokens).toBe(1000);
    expect(b).not.toHaveProperty('max_tokens');
  });

  it('sampling: temperature and top_p pass; top_k and stop sequences beyond 4 are dropped with warnings', () => {
    const { json, warnings } = encode(request({ temperature: 0.2, topP: 0.9, topK: 40, stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'] }));
    expect(json.temperature).toBe(0.2);
    expect(json.top_p).toBe(0.9);
    expect(json).not.toHaveProperty('top_k');
    expect(json.stop).toEqual(['a', 'b', 'c', 'd']);
    expect(warnings.map((w) => w.field)).toEqual(['top_k', 'stop_sequences']);
    expect(warnings[1]!.message).toContain('2 dropped');
    expect(encode(request({ stopSequences: ['x'] })).warnings).toEqual([]);
  });

  it('custom tools travel as functions taking {input}; history calls wrap their raw input', () => {
    const patch: ToolDefinition = {
      name: 'apply_patch',
      kind: 'custom',
      description: 'Apply a patch',
      format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch"' },
    };
    const turns: Turn[] = [
      { role: 'user', parts: [{ type: 'text', text: 'fix it' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'call_P', name: 'apply_patch', arguments: '*** Begin Patch\n"q"', kind: 'custom' }] },
      { role: 'user', parts: [{ type: 'tool-result', callId: 'call_P', content: [{ type: 'text', text: 'Done' }], isError: false, kind: 'custom' }] },
    ];
    const { json } = encode(request({ tools: [patch], turns, toolChoice: { type: 'tool', name: 'apply_patch' } }));
    const fn = json.tools[0].function;
    expect(fn.name).toBe('apply_patch');
    expect(fn.description).toBe('Apply a patch');
    expect(fn.parameters.required).toEqual(['input']);
    expect(fn.parameters.properties.input.type).toBe('string');
    expect(fn.parameters.properties.input.description).toContain('lark grammar:\nstart: "*** Begin Patch"');
    expect(fn).not.toHaveProperty('strict');
    expect(json.tool_choice).toEqual({ type: 'function', function: { name: 'apply_patch' } });
    expect(JSON.parse(json.messages[1].tool_calls[0].function.arguments)).toEqual({ input: '*** Begin Patch\n"q"' });
  });

  it('reasoning effort: explicit effort, budget thresholds, disabled', () => {
    expect(reasoningEffort(undefined)).toBeUndefined();
    expect(reasoningEffort({ effort: 'minimal' })).toBe('minimal');
    expect(reasoningEffort({ effort: 'none' })).toBeUndefined();
    expect(reasoningEffort({ mode: 'disabled', budgetTokens: 5000 })).toBeUndefined();
    expect(reasoningEffort({ mode: 'adaptive' })).toBeUndefined();
    const byBudget = [1024, 2048, 2049, 8192, 8193, 24576, 24577, 64000].map((b) => reasoningEffort({ mode: 'enabled', budgetTokens: b }));
    expect(byBudget).toEqual(['low', 'low', 'medium', 'medium', 'high', 'high', 'xhigh', 'xhigh']);
    expect(encode(request({ reasoning: { mode: 'enabled', budgetTokens: 10000 } })).json.reasoning_effort).toBe('high');
  });

  it('response_format, user, streaming options; other protocols’ extras are reported, not sent', () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    const { json, warnings } = encode(
      request({
        outputFormat: { type: 'json_schema', schema, strict: true },
        user: 'user-42',
        extras: { responses: { store: false, prompt_cache_key: 'k' } },
      }),
      target(),
      true,
    );
    expect(json.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema, strict: true } });
    expect(json.user).toBe('user-42');
    expect(json).not.toHaveProperty('safety_identifier');
    expect(json).not.toHaveProperty('store');
    expect(json.stream).toBe(true);
    expect(json.stream_options).toEqual({ include_usage: true });
    expect(warnings).toEqual([{ field: 'extras', message: expect.stringContaining('store, prompt_cache_key') }]);
    expect(encode(request({ outputFormat: { type: 'json_object' } })).json.response_format).toEqual({ type: 'json_object' });
    const plain = encode(request({ outputFormat: { type: 'text' } })).json;
    expect(plain).not.toHaveProperty('response_format');
    expect(plain).not.toHaveProperty('stream');
    expect(plain).not.toHaveProperty('stream_options');
  });
});
