import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/errors.js';
import { responsesDriver } from '../../../../src/drivers/openai-responses/index.js';
import { toCallerId } from '../../../../src/ir/tool-ids.js';
import type { IrRequest, ToolDefinition, Turn, Warning } from '../../../../src/ir/types.js';
import { fixtureJson, request, target } from './support.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function encode(req: IrRequest, stream = true): { body: Body; warnings: Warning[]; path: string; headers: Record<string, string> } {
  const warnings: Warning[] = [];
  const enc = responsesDriver.encodeRequest(req, target, stream, warnings);
  return { body: JSON.parse(enc.body) as Body, warnings, path: enc.path, headers: enc.headers };
}

const user = (text: string): Turn => ({ role: 'user', parts: [{ type: 'text', text }] });
const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather',
  kind: 'function',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('responses encodeRequest', () => {
  it('plain text: path, headers and a minimal stateless body', () => {
    const { body, warnings, path, headers } = encode(request());
    expect(path).toBe('/responses');
    expect(headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer sk-upstream', 'x-config-header': 'on' });
    expect(body).toEqual({
      model: 'gpt-5',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
      store: false,
      include: ['reasoning.encrypted_content'],
      stream: true,
    });
    expect(warnings).toEqual([]);
    expect(encode(request(), false).body.stream).toBe(false);
  });

  it('no authorization header without a key; configured headers win', () => {
    const warnings: Warning[] = [];
    const enc = responsesDriver.encodeRequest(request(), { ...target, apiKey: undefined, headers: { 'openai-project': 'p1' } }, true, warnings);
    expect(enc.headers).toEqual({ 'content-type': 'application/json', 'openai-project': 'p1' });
  });

  it('system texts become instructions joined by a blank line; empty ones are skipped', () => {
    const { body } = encode(
      request({ system: [{ type: 'text', text: 'You are terse.' }, { type: 'text', text: '' }, { type: 'text', text: 'Answer in French.', cacheControl: { type: 'ephemeral' } }] }),
    );
    expect(body.instructions).toBe('You are terse.\n\nAnswer in French.');
    expect(JSON.stringify(body)).not.toContain('ephemeral');
    expect(encode(request({ system: [{ type: 'text', text: '' }] })).body).not.toHaveProperty('instructions');
  });

  it('multi-turn: user/assistant messages in order, empty text dropped, consecutive assistant texts in one message', () => {
    const { body } = encode(
      request({
        turns: [
          user('My name is Ada.'),
          { role: 'assistant', parts: [{ type: 'text', text: 'Hello Ada.' }, { type: 'text', text: '' }, { type: 'text', text: 'How can I help?' }] },
          { role: 'user', parts: [{ type: 'text', text: '' }, { type: 'text', text: 'What is my name?' }] },
        ],
      }),
    );
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'My name is Ada.' }] },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Hello Ada.', annotations: [] },
          { type: 'output_text', text: 'How can I help?', annotations: [] },
        ],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] },
    ]);
  });

  it('assistant refusal text becomes a refusal part', () => {
    const { body } = encode(request({ turns: [user('x'), { role: 'assistant', parts: [{ type: 'text', text: 'No.', refusal: true }] }, user('y')] }));
    expect(body.input[1]).toEqual({ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] });
  });

  it('tool definitions: explicit strict, default schema, null description; tool_choice forms; parallel flag', () => {
    const apply: ToolDefinition = { name: 'apply_patch', kind: 'custom', description: 'Patch files', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } };
    const bare: ToolDefinition = { name: 'ping', kind: 'function', strict: true };
    const { body } = encode(request({ tools: [weather, bare, apply], toolChoice: { type: 'tool', name: 'get_weather' }, parallelToolCalls: false }));
    expect(body.tools).toEqual([
      { type: 'function', name: 'get_weather', description: 'Current weather', parameters: weather.inputSchema, strict: false },
      { type: 'function', name: 'ping', description: null, parameters: { type: 'object', properties: {} }, strict: true },
      { type: 'custom', name: 'apply_patch', description: 'Patch files', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', name: 'get_weather' });
    expect(body.parallel_tool_calls).toBe(false);

    const choice = (toolChoice: IrRequest['toolChoice']) => encode(request({ tools: [weather, apply], toolChoice })).body.tool_choice;
    expect(choice({ type: 'auto' })).toBe('auto');
    expect(choice({ type: 'none' })).toBe('none');
    expect(choice({ type: 'required' })).toBe('required');
    expect(choice({ type: 'tool', name: 'apply_patch' })).toEqual({ type: 'custom', name: 'apply_patch' });
    expect(choice({ type: 'allowed', mode: 'required', names: ['get_weather', 'apply_patch'] })).toEqual({
      type: 'allowed_tools',
      mode: 'required',
      tools: [
        { type: 'function', name: 'get_weather' },
        { type: 'custom', name: 'apply_patch' },
      ],
    });
    // Without tools a choice means nothing (and `required` would be a 400 upstream).
    const none = encode(request({ toolChoice: { type: 'required' } })).body;
    expect(none).not.toHaveProperty('tool_choice');
    expect(none).not.toHaveProperty('tools');
  });

  it('full tool round trip: the upstream id goes out to the caller re-encoded and comes back unchanged', () => {
    // Turn 1 answered by the upstream (a call id no Anthropic caller could echo as is).
    const result = responsesDriver.decodeResult(fixtureJson('result-reasoning-tool.json'), request({ tools: [weather] }));
    const call = result.content.find((p) => p.type === 'tool-call')!;
    expect(call.type === 'tool-call' && call.id).toBe(toCallerId('functions.get_weather:0'));
    expect(call.type === 'tool-call' && call.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    // Turn 2: the caller echoes the assistant turn and answers the call with its own copy of the id.
    const { body, warnings } = encode(
      request({
        tools: [weather],
        turns: [
          user('Weather in Paris?'),
          { role: 'assistant', parts: result.content },
          { role: 'user', parts: [{ type: 'tool-result', callId: call.type === 'tool-call' ? call.id : '', content: [{ type: 'text', text: 'sunny, 21C' }], isError: false, kind: 'function' }] },
        ],
      }),
    );
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
      {
        type: 'reasoning',
        id: 'rs_j_0',
        summary: [
          { type: 'summary_text', text: 'First part.' },
          { type: 'summary_text', text: 'Second part.' },
        ],
        encrypted_content: 'gAAAAABoJ0',
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }] },
      { type: 'function_call', call_id: 'functions.get_weather:0', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'functions.get_weather:0', output: 'sunny, 21C' },
    ]);
    expect(warnings).toEqual([]);
  });

  it('two parallel calls and their results: outputs first (result order), then the user text; errors prefixed', () => {
    const { body } = encode(
      request({
        tools: [weather],
        turns: [
          user('Paris and Rome?'),
          {
            role: 'assistant',
            parts: [
              { type: 'text', text: 'Checking both.' },
              { type: 'tool-call', id: 'call_A1', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
              { type: 'tool-call', id: 'call_B2', name: 'get_weather', arguments: '', kind: 'function' },
            ],
          },
          {
            role: 'user',
            parts: [
              { type: 'tool-result', callId: 'call_B2', content: [{ type: 'text', text: 'city missing' }], isError: true, kind: 'function' },
              { type: 'tool-result', callId: 'call_A1', content: [{ type: 'text', text: 'Paris: sun' }, { type: 'text', text: '21C' }], isError: false, kind: 'function' },
              { type: 'text', text: 'Thanks' },
            ],
          },
        ],
      }),
    );
    expect(body.input.slice(1)).toEqual([
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking both.', annotations: [] }] },
      { type: 'function_call', call_id: 'call_A1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_B2', name: 'get_weather', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_B2', output: 'Error: city missing' },
      { type: 'function_call_output', call_id: 'call_A1', output: 'Paris: sun\n21C' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
    ]);
  });

  it('orphan calls get a synthesized output; an output without its call becomes user content', () => {
    const { body, warnings } = encode(
      request({
        turns: [
          user('go'),
          { role: 'assistant', parts: [{ type: 'tool-call', id: 'call_X', name: 'f', arguments: '{}', kind: 'function' }] },
          {
            role: 'user',
            parts: [
              { type: 'tool-result', callId: 'call_ghost', content: [{ type: 'text', text: 'late' }], isError: false, kind: 'function' },
              { type: 'text', text: 'never mind' },
            ],
          },
          { role: 'assistant', parts: [{ type: 'tool-call', id: 'call_Y', name: 'apply_patch', arguments: 'patch', kind: 'custom' }] },
        ],
      }),
    );
    expect(body.input.slice(1)).toEqual([
      { type: 'function_call', call_id: 'call_X', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_X', output: 'Tool call was not completed.' },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Result of tool call call_ghost:\nlate' },
          { type: 'input_text', text: 'never mind' },
        ],
      },
      { type: 'custom_tool_call', call_id: 'call_Y', name: 'apply_patch', input: 'patch' },
      { type: 'custom_tool_call_output', call_id: 'call_Y', output: 'Tool call was not completed.' },
    ]);
    expect(warnings.map((w) => w.field)).toEqual(['tool_result', 'tool_result']);
  });

  it('images (base64 and URL), PDFs and text documents; tool results with an image become content parts', () => {
    const { body } = encode(
      request({
        turns: [
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' }, detail: 'high' },
              { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' } },
              { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf' }, filename: 'a.pdf' },
              { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'Body text.' }, title: 'Notes' },
            ],
          },
          { role: 'assistant', parts: [{ type: 'tool-call', id: 'call_S', name: 'screenshot', arguments: '{}', kind: 'function' }] },
          {
            role: 'user',
            parts: [
              {
                type: 'tool-result',
                callId: 'call_S',
                content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/' } }],
                isError: true,
                kind: 'function',
              },
            ],
          },
        ],
      }),
    );
    expect(body.input[0].content).toEqual([
      { type: 'input_text', text: 'What is this?' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
      { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'high' },
      { type: 'input_file', filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
      { type: 'input_file', file_url: 'https://example.com/a.pdf', filename: 'a.pdf' },
      { type: 'input_text', text: 'Notes\n\nBody text.' },
    ]);
    expect(body.input[2]).toEqual({
      type: 'function_call_output',
      call_id: 'call_S',
      output: [
        { type: 'input_text', text: 'Error' },
        { type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/', detail: 'auto' },
      ],
    });
  });

  it('file ids pass only from a Responses caller (they are OpenAI ids); from others it is a 400', () => {
    const turns: Turn[] = [{ role: 'user', parts: [{ type: 'image', source: { kind: 'file-id', fileId: 'file-abc' } }] }];
    expect(encode(request({ turns, sourceProtocol: 'responses' })).body.input[0].content).toEqual([{ type: 'input_image', file_id: 'file-abc', detail: 'auto' }]);
    let caught: unknown;
    try {
      encode(request({ turns }));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).kind).toBe('invalid_request');
  });

  it('reasoning carries: openai restored, anthropic and content-less ones dropped with one warning each', () => {
    const { body, warnings } = encode(
      request({
        turns: [
          user('q'),
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: 'hmm', carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'hmm', signature: 'sig' } } },
              { type: 'reasoning', text: 'x', carry: { family: 'openai', id: 'rs_1', encryptedContent: 'gAAAA1', summary: [{ type: 'summary_text', text: 'x' }] } },
              { type: 'reasoning', text: 'y', carry: { family: 'openai', id: 'rs_2', encryptedContent: null, summary: [] } },
              { type: 'reasoning', text: 'z', carry: { family: 'chat', text: 'z' } },
              { type: 'text', text: 'a' },
            ],
          },
          user('again'),
        ],
      }),
    );
    expect(body.input.slice(1, 3)).toEqual([
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'x' }], encrypted_content: 'gAAAA1' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a', annotations: [] }] },
    ]);
    expect(JSON.stringify(body)).not.toContain('sig');
    expect(warnings).toHaveLength(2);
    expect(warnings.every((w) => w.field === 'reasoning')).toBe(true);
  });

  it('Messages-style thinking budget → effort; summaries asked for by default', () => {
    const reasoning = (r: IrRequest['reasoning']) => encode(request({ reasoning: r })).body.reasoning;
    expect(reasoning({ mode: 'enabled', budgetTokens: 1024 })).toEqual({ effort: 'low', summary: 'auto' });
    expect(reasoning({ mode: 'enabled', budgetTokens: 2048 })).toEqual({ effort: 'low', summary: 'auto' });
    expect(reasoning({ mode: 'enabled', budgetTokens: 2049 })).toEqual({ effort: 'medium', summary: 'auto' });
    expect(reasoning({ mode: 'enabled', budgetTokens: 8192 })).toEqual({ effort: 'medium', summary: 'auto' });
    expect(reasoning({ mode: 'enabled', budgetTokens: 24576 })).toEqual({ effort: 'high', summary: 'auto' });
    expect(reasoning({ mode: 'enabled', budgetTokens: 24577 })).toEqual({ effort: 'xhigh', summary: 'auto' });
    expect(reasoning({ mode: 'adaptive' })).toEqual({ effort: 'medium', summary: 'auto' });
    expect(reasoning({ mode: 'adaptive', effort: 'high' })).toEqual({ effort: 'high', summary: 'auto' });
    expect(reasoning({ mode: 'adaptive', display: 'omitted' })).toEqual({ effort: 'medium' });
    expect(reasoning({ mode: 'disabled', budgetTokens: 4000 })).toBeUndefined();
    expect(reasoning(undefined)).toBeUndefined();
    expect(reasoning({ effort: 'low', summary: 'detailed' })).toEqual({ effort: 'low', summary: 'detailed' });
    expect(reasoning({ effort: 'minimal', summary: null })).toEqual({ effort: 'minimal' });
    expect(reasoning({ effort: 'none' })).toEqual({ effort: 'none' });
    expect(reasoning({ summary: 'auto' })).toEqual({ summary: 'auto' });
  });

  it('stop sequences and top_k are dropped with warnings; limits and sampling pass', () => {
    const { body, warnings } = encode(request({ stopSequences: ['three'], topK: 40, maxOutputTokens: 5, temperature: 0.2, topP: 0.9 }));
    expect(body).not.toHaveProperty('stop_sequences');
    expect(body).not.toHaveProperty('stop');
    expect(body).not.toHaveProperty('top_k');
    expect(body.max_output_tokens).toBe(16);
    expect(body.temperature).toBe(0.2);
    expect(body.top_p).toBe(0.9);
    expect(warnings.map((w) => w.field).sort()).toEqual(['stop_sequences', 'top_k']);
    expect(encode(request({ maxOutputTokens: 32000 })).body.max_output_tokens).toBe(32000);
  });

  it('namespace tools are grouped where the namespace first appears; calls keep their namespace', () => {
    const { body } = encode(
      request({
        tools: [
          { name: 'spawn_agent', kind: 'function', namespace: 'multi_agent_v1', inputSchema: { type: 'object', properties: {} } },
          weather,
          { name: 'send_input', kind: 'function', namespace: 'multi_agent_v1', description: 'Send', strict: true },
        ],
        turns: [
          user('go'),
          { role: 'assistant', parts: [{ type: 'tool-call', id: 'call_N', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}', kind: 'function' }] },
          { role: 'user', parts: [{ type: 'tool-result', callId: 'call_N', content: [], isError: false, kind: 'function' }] },
        ],
      }),
    );
    expect(body.tools).toEqual([
      {
        type: 'namespace',
        name: 'multi_agent_v1',
        description: '',
        tools: [
          { type: 'function', name: 'spawn_agent', description: null, parameters: { type: 'object', properties: {} }, strict: false },
          { type: 'function', name: 'send_input', description: 'Send', parameters: { type: 'object', properties: {} }, strict: true },
        ],
      },
      { type: 'function', name: 'get_weather', description: 'Current weather', parameters: weather.inputSchema, strict: false },
    ]);
    expect(body.input.slice(1)).toEqual([
      { type: 'function_call', call_id: 'call_N', name: 'spawn_agent', arguments: '{}', namespace: 'multi_agent_v1' },
      { type: 'function_call_output', call_id: 'call_N', output: '' },
    ]);
  });

  it('custom tool: call, output by the call kind, and a long or invalid name shortened everywhere', () => {
    const long = 'mcp.tracker.create_issue_in_the_tracker_for_the_current_project_with_labels';
    const wire = 'mcp_tracker_create_issue_in_the_tracker_for_the_current_7a1fe454';
    const { body } = encode(
      request({
        tools: [{ name: 'apply_patch', kind: 'custom' }, { name: long, kind: 'function' }],
        toolChoice: { type: 'tool', name: long },
        turns: [
          user('patch it'),
          {
            role: 'assistant',
            parts: [
              { type: 'tool-call', id: 'call_P', name: 'apply_patch', arguments: '*** Begin Patch', kind: 'custom' },
              { type: 'tool-call', id: 'call_L', name: long, arguments: '{}', kind: 'function' },
            ],
          },
          {
            role: 'user',
            parts: [
              // A Messages caller cannot know the tool was custom: the call's kind decides.
              { type: 'tool-result', callId: 'call_P', content: [{ type: 'text', text: 'Done!' }], isError: false, kind: 'function' },
              { type: 'tool-result', callId: 'call_L', content: [{ type: 'text', text: '#12' }], isError: false, kind: 'function' },
            ],
          },
        ],
      }),
    );
    expect(body.tools).toEqual([
      { type: 'custom', name: 'apply_patch' },
      { type: 'function', name: wire, description: null, parameters: { type: 'object', properties: {} }, strict: false },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', name: wire });
    expect(body.input.slice(1)).toEqual([
      { type: 'custom_tool_call', call_id: 'call_P', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'function_call', call_id: 'call_L', name: wire, arguments: '{}' },
      { type: 'custom_tool_call_output', call_id: 'call_P', output: 'Done!' },
      { type: 'function_call_output', call_id: 'call_L', output: '#12' },
    ]);
  });

  it('output format, end-user id and metadata', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(encode(request({ outputFormat: { type: 'json_schema', schema } })).body.text).toEqual({
      format: { type: 'json_schema', name: 'output', schema, strict: false },
    });
    expect(encode(request({ outputFormat: { type: 'json_schema', name: 'answer', description: 'd', schema, strict: true } })).body.text).toEqual({
      format: { type: 'json_schema', name: 'answer', schema, strict: true, description: 'd' },
    });
    expect(encode(request({ outputFormat: { type: 'json_object' } })).body.text).toEqual({ format: { type: 'json_object' } });
    const { body } = encode(request({ user: 'user-42', metadata: { team: 'a' } }));
    expect(body.safety_identifier).toBe('user-42');
    expect(body.metadata).toEqual({ team: 'a' });
  });

  it('a Responses caller’s own fields are forwarded; store, previous_response_id stay ours; include merged', () => {
    const { body, warnings } = encode(
      request({
        sourceProtocol: 'responses',
        outputFormat: { type: 'json_object' },
        reasoning: { effort: 'high', summary: 'auto' },
        extras: {
          responses: {
            store: true,
            previous_response_id: 'resp_old',
            include: ['message.output_text.logprobs', 'reasoning.encrypted_content'],
            prompt_cache_key: 'pck-1',
            service_tier: 'flex',
            truncation: 'auto',
            text: { verbosity: 'low', format: { type: 'text' } },
            stream_options: { include_obfuscation: false },
            model: 'caller-model',
            reasoning: { effort: 'low', context: 'all_turns' },
          },
        },
      }),
    );
    expect(body.store).toBe(false);
    expect(body).not.toHaveProperty('previous_response_id');
    expect(body.include).toEqual(['reasoning.encrypted_content', 'message.output_text.logprobs']);
    expect(body.prompt_cache_key).toBe('pck-1');
    expect(body.service_tier).toBe('flex');
    expect(body.truncation).toBe('auto');
    expect(body.text).toEqual({ format: { type: 'json_object' }, verbosity: 'low' });
    expect(body.stream_options).toEqual({ include_obfuscation: false });
    expect(body.reasoning).toEqual({ effort: 'high', summary: 'auto', context: 'all_turns' });
    expect(body.model).toBe('gpt-5');
    expect(warnings).toEqual([]);
    // stream_options is only valid on a streamed request.
    expect(encode(request({ sourceProtocol: 'responses', extras: { responses: { stream_options: {} } } }), false).body).not.toHaveProperty('stream_options');
  });

  it('another protocol’s extras are not forwarded but reported', () => {
    const { body, warnings } = encode(request({ extras: { messages: { context_management: { edits: [] }, container: 'c1' } } }));
    expect(body).not.toHaveProperty('context_management');
    expect(body).not.toHaveProperty('container');
    expect(warnings.map((w) => w.field)).toEqual(['context_management', 'container']);
  });
});
