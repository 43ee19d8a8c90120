import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { responsesCodec } from '../../../../src/codecs/openai-responses/index.js';
import { GatewayError } from '../../../../src/errors.js';
import type { IrRequest, Warning } from '../../../../src/ir/types.js';

const fixture = (name: string): Record<string, any> =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/caller/openai-responses/${name}`, import.meta.url), 'utf8'));

function decode(body: unknown): { ir: IrRequest; warnings: Warning[] } {
  const warnings: Warning[] = [];
  return { ir: responsesCodec.decodeRequest(body, warnings), warnings };
}

function reject(body: unknown): GatewayError {
  try {
    responsesCodec.decodeRequest(body, []);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected the request to be rejected');
}

const minimal = (over: Record<string, unknown>) => ({ model: 'gpt-5', input: 'hi', ...over });

describe('decodeRequest: a Codex turn (clients.md)', () => {
  const body = fixture('codex-request.json');
  const { ir, warnings } = decode(body);

  it('hoists developer messages into system, in order, with no instructions', () => {
    expect(ir.system).toEqual([
      { type: 'text', text: 'You are Codex, a coding agent. Sandbox: workspace-write.' },
      { type: 'text', text: '## Skills\n- skill-creator' },
    ]);
    expect(ir.extras.responses).not.toHaveProperty('instructions');
  });

  it('folds items into alternating turns, tool results first in their user turn, item ids ignored', () => {
    expect(ir.turns.map((t) => [t.role, t.parts.map((p) => p.type)])).toEqual([
      ['user', ['text', 'text']],
      ['assistant', ['reasoning', 'text', 'tool-call']],
      ['user', ['tool-result']],
      ['assistant', ['reasoning', 'tool-call']],
      ['user', ['tool-result', 'text']],
    ]);
    expect(ir.turns[0]!.parts[1]).toEqual({ type: 'text', text: 'List the files, then add a greeting file.' });
    expect(ir.turns[1]!.parts[1]).toEqual({ type: 'text', text: 'Listing the workspace.' });
    expect(ir.turns[1]!.parts[2]).toEqual({
      type: 'tool-call',
      id: 'call_ls_1',
      name: 'exec_command',
      arguments: '{"cmd":"ls","justification":"see files"}',
      kind: 'function',
      itemId: 'fc_0c1b2e9a81',
    });
    expect(ir.turns[2]!.parts[0]).toEqual({
      type: 'tool-result',
      callId: 'call_ls_1',
      content: [{ type: 'text', text: 'README.md\nsrc\n' }],
      isError: false,
      kind: 'function',
    });
    expect(ir.turns[3]!.parts[1]).toEqual({
      type: 'tool-call',
      id: 'call_patch_2',
      name: 'apply_patch',
      arguments: '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch',
      kind: 'custom',
      itemId: 'ctc_0c1b2e9a83',
    });
    expect(ir.turns[4]!.parts).toEqual([
      { type: 'tool-result', callId: 'call_patch_2', content: [{ type: 'text', text: 'Success. Updated the following files:\nA hello.txt' }], isError: false, kind: 'custom' },
      { type: 'text', text: 'Thanks. Now run the tests.' },
    ]);
  });

  it('a native encrypted_content becomes an openai carry; our envelope restores the carry it wraps', () => {
    expect(ir.turns[1]!.parts[0]).toEqual({
      type: 'reasoning',
      text: "**Listing files**\n\nI'll run ls first.",
      carry: {
        family: 'openai',
        id: 'rs_0c1b2e9a7f',
        encryptedContent: 'gAAAAABpNativeOpenAIBlob_0001==',
        summary: [
          { type: 'summary_text', text: '**Listing files**' },
          { type: 'summary_text', text: "I'll run ls first." },
        ],
      },
    });
    expect(ir.turns[3]!.parts[0]).toEqual({
      type: 'reasoning',
      text: '',
      carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'Now write the file.', signature: 'EqoBsig' } },
    });
  });

  it('function, custom and namespace tools translate; web_search is dropped with a warning', () => {
    expect(ir.tools).toEqual([
      {
        name: 'exec_command',
        description: 'Runs a command in a PTY.',
        kind: 'function',
        strict: false,
        inputSchema: body.tools[0].parameters,
      },
      {
        name: 'apply_patch',
        description: 'Use the `apply_patch` tool to edit files.',
        kind: 'custom',
        format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
      },
      {
        name: 'spawn_agent',
        description: 'Start a sub-agent.',
        kind: 'function',
        strict: false,
        inputSchema: { type: 'object', properties: { task: { type: 'string' } } },
        namespace: 'multi_agent_v1',
      },
      { name: 'wait_agent', kind: 'function', namespace: 'multi_agent_v1' },
    ]);
    expect(warnings.map((w) => w.field)).toEqual(['input.phase', 'input.web_search_call', 'tools.web_search']);
  });

  it('maps the knobs and keeps every other field verbatim in extras.responses', () => {
    expect(ir).toMatchObject({
      model: 'gpt-5.1-codex',
      stream: true,
      toolChoice: { type: 'auto' },
      parallelToolCalls: true,
      reasoning: { effort: 'medium', summary: 'auto' },
      sourceProtocol: 'responses',
      stopSequences: [],
    });
    expect(ir.extras.responses).toEqual({
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: '0199a1c2-0000-7000-8000-0000000000ff',
      client_metadata: { turn_id: '0199a1c2-turn', thread_id: '0199a1c2-thread' },
      text: { verbosity: 'low' },
    });
    expect(ir.outputFormat).toBeUndefined();
  });
});

describe('decodeRequest: an SDK request', () => {
  it('instructions, string input, sampling, metadata, safety_identifier, json_schema format', () => {
    const { ir, warnings } = decode(fixture('sdk-request.json'));
    expect(warnings).toEqual([]);
    expect(ir).toEqual({
      model: 'gpt-5-mini',
      system: [{ type: 'text', text: 'You are terse.' }],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'Describe a cat in JSON.' }] }],
      tools: [],
      toolChoice: undefined,
      parallelToolCalls: undefined,
      maxOutputTokens: 400,
      temperature: 0.2,
      topP: 0.9,
      topK: undefined,
      stopSequences: [],
      reasoning: undefined,
      outputFormat: {
        type: 'json_schema',
        name: 'cat',
        description: 'A cat',
        strict: true,
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
      },
      user: 'user-7f3a',
      metadata: { team: 'search', ticket: 'T-42' },
      stream: false,
      sourceProtocol: 'responses',
      extras: { responses: { instructions: 'You are terse.', store: true } },
    });
  });

  it('images and files: data URL → base64 with media type, https → url, file_id → file-id; detail kept', () => {
    const { ir } = decode(
      minimal({
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is in these?' },
              { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' },
              { type: 'input_image', image_url: 'https://example.com/cat.jpg', detail: 'auto' },
              { type: 'input_image', file_id: 'file-img1', detail: 'low' },
              { type: 'input_file', filename: 'doc.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' },
              { type: 'input_file', file_url: 'https://example.com/a.pdf' },
              { type: 'input_file', file_id: 'file-abc' },
              { type: 'input_file', filename: 'notes.txt', file_data: 'aGVsbG8=' },
            ],
          },
        ],
      }),
    );
    expect(ir.turns[0]!.parts).toEqual([
      { type: 'text', text: 'What is in these?' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, detail: 'high' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' }, detail: 'auto' },
      { type: 'image', source: { kind: 'file-id', fileId: 'file-img1' }, detail: 'low' },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0x' }, filename: 'doc.pdf' },
      { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf' } },
      { type: 'file', source: { kind: 'file-id', fileId: 'file-abc' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'text/plain', data: 'aGVsbG8=' }, filename: 'notes.txt' },
    ]);
  });

  it('assistant history with output_text and refusal; tool output as parts; results precede user text', () => {
    const { ir } = decode(
      minimal({
        input: [
          { role: 'user', content: 'weather?' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }, { type: 'refusal', refusal: 'Not that.' }] },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}', namespace: 'tools_ns' },
          {
            type: 'function_call_output',
            call_id: 'call_1',
            output: [
              { type: 'input_text', text: 'sunny' },
              { type: 'input_image', image_url: 'https://example.com/sun.png' },
            ],
          },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'here you go' }] },
          { role: 'assistant', content: 'Sunny.' },
        ],
      }),
    );
    expect(ir.turns).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'weather?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Checking.' },
          { type: 'text', text: 'Not that.', refusal: true },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{}', kind: 'function', namespace: 'tools_ns' },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool-result',
            callId: 'call_1',
            content: [
              { type: 'text', text: 'sunny' },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/sun.png' } },
            ],
            isError: false,
            kind: 'function',
          },
          { type: 'text', text: 'here you go' },
        ],
      },
      { role: 'assistant', parts: [{ type: 'text', text: 'Sunny.' }] },
    ]);
  });

  it('system messages, instructions first; reasoning item without encrypted_content keeps id and summary', () => {
    const { ir } = decode(
      minimal({
        instructions: 'Be brief.',
        input: [
          { role: 'system', content: 'Policy A' },
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thought' }] },
          { role: 'developer', content: [{ type: 'input_text', text: 'Policy B' }] },
          { role: 'user', content: 'go' },
        ],
      }),
    );
    expect(ir.system.map((p) => p.text)).toEqual(['Be brief.', 'Policy A', 'Policy B']);
    expect(ir.turns).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'reasoning', text: 'thought', carry: { family: 'openai', id: 'rs_1', encryptedContent: null, summary: [{ type: 'summary_text', text: 'thought' }] } }],
      },
      { role: 'user', parts: [{ type: 'text', text: 'go' }] },
    ]);
  });

  it('tool_choice forms, generate_summary, user fallback, json_object, unknown top-level fields', () => {
    const base = { tools: [{ type: 'function', name: 'a', parameters: { type: 'object' } }, { type: 'custom', name: 'b' }] };
    expect(decode(minimal({ ...base, tool_choice: 'required' })).ir.toolChoice).toEqual({ type: 'required' });
    expect(decode(minimal({ ...base, tool_choice: { type: 'function', name: 'a' } })).ir.toolChoice).toEqual({ type: 'tool', name: 'a' });
    expect(decode(minimal({ ...base, tool_choice: { type: 'custom', name: 'b' } })).ir.toolChoice).toEqual({ type: 'tool', name: 'b' });
    const allowed = decode(
      minimal({
        ...base,
        tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'a' }, { type: 'mcp', server_label: 'x' }] },
      }),
    );
    expect(allowed.ir.toolChoice).toEqual({ type: 'allowed', mode: 'required', names: ['a'] });
    expect(allowed.warnings.map((w) => w.field)).toEqual(['tool_choice']);
    const builtIn = decode(minimal({ tool_choice: { type: 'web_search_preview' } }));
    expect(builtIn.ir.toolChoice).toBeUndefined();
    expect(builtIn.warnings.map((w) => w.field)).toEqual(['tool_choice']);

    const r = decode(
      minimal({
        reasoning: { generate_summary: 'concise', context: 'all_turns' },
        user: 'legacy-user',
        text: { format: { type: 'json_object' } },
        service_tier: 'flex',
        truncation: 'auto',
        top_logprobs: 3,
        future_knob: { a: 1 },
        previous_response_id: 'resp_prev',
      }),
    ).ir;
    expect(r.reasoning).toEqual({ summary: 'concise' });
    expect(r.user).toBe('legacy-user');
    expect(r.outputFormat).toEqual({ type: 'json_object' });
    expect(r.extras.responses).toEqual({
      reasoning: { context: 'all_turns' },
      user: 'legacy-user',
      service_tier: 'flex',
      truncation: 'auto',
      top_logprobs: 3,
      future_knob: { a: 1 },
      previous_response_id: 'resp_prev',
    });
    expect(decode(minimal({ safety_identifier: 'sid', user: 'u' })).ir.user).toBe('sid');
  });

  it('input may be absent when the conversation comes from previous_response_id', () => {
    const { ir } = decode({ model: 'gpt-5', previous_response_id: 'resp_1' });
    expect(ir.turns).toEqual([]);
    expect(ir.extras.responses).toEqual({ previous_response_id: 'resp_1' });
  });

  it('unknown part types and built-in tools are dropped with bounded warning fields', () => {
    const { ir, warnings } = decode(
      minimal({
        input: [
          { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }, { type: 'input_text', text: 'hi' }] },
          { role: 'developer', content: [{ type: 'input_image', image_url: 'https://example.com/x.png' }] },
          { type: 'local_shell_call', id: 'lsh_1', call_id: 'c', action: {}, status: 'completed' },
          { type: 'compaction', encrypted_content: 'gAAA' },
        ],
        tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }, { type: 'mcp', server_label: 's' }, { type: 'web_search_2025_08_26' }],
      }),
    );
    expect(ir.turns).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }]);
    expect(ir.tools).toEqual([]);
    expect(warnings.map((w) => w.field)).toEqual([
      'input.content',
      'input.content',
      'input.local_shell_call',
      'input.compaction',
      'tools.file_search',
      'tools.mcp',
      'tools.other',
    ]);
  });
});

describe('decodeRequest: validation errors name the field, OpenAI style', () => {
  const cases: [string, unknown, string, string][] = [
    ['model missing', { input: 'hi' }, 'model', 'missing_required_parameter'],
    ['model not a string', { model: 5, input: 'hi' }, 'model', 'invalid_type'],
    ['input missing', { model: 'gpt-5' }, 'input', 'missing_required_parameter'],
    ['input wrong type', { model: 'gpt-5', input: 42 }, 'input', 'invalid_type'],
    [
      'message content wrong type',
      minimal({ input: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }, { role: 'user', content: 7 }] }),
      'input[2].content',
      'invalid_type',
    ],
    ['message without role', minimal({ input: [{ content: 'a' }] }), 'input[0].role', 'missing_required_parameter'],
    ['bad role', minimal({ input: [{ role: 'robot', content: 'a' }] }), 'input[0].role', 'invalid_value'],
    ['function_call without call_id', minimal({ input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }), 'input[0].call_id', 'missing_required_parameter'],
    ['function_call_output without output', minimal({ input: [{ type: 'function_call_output', call_id: 'c' }] }), 'input[0].output', 'missing_required_parameter'],
    [
      'bad content part',
      minimal({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'ok' }, { type: 'input_text' }] }] }),
      'input[0].content[1].text',
      'missing_required_parameter',
    ],
    [
      'bad summary part',
      minimal({ input: [{ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary', text: 'x' }] }] }),
      'input[0].summary[0].type',
      'invalid_value',
    ],
    ['tool without name', minimal({ tools: [{ type: 'function', parameters: {} }] }), 'tools[0].name', 'missing_required_parameter'],
    [
      'namespace member without name',
      minimal({ tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'function' }] }] }),
      'tools[0].tools[0].name',
      'missing_required_parameter',
    ],
    ['tool_choice unknown string', minimal({ tool_choice: 'sometimes' }), 'tool_choice', 'invalid_value'],
    ['tool_choice function without name', minimal({ tool_choice: { type: 'function' } }), 'tool_choice.name', 'missing_required_parameter'],
    ['temperature above 2', minimal({ temperature: 3 }), 'temperature', 'decimal_above_max_value'],
    ['max_output_tokens decimal', minimal({ max_output_tokens: 10.5 }), 'max_output_tokens', 'invalid_type'],
    ['reasoning effort', minimal({ reasoning: { effort: 'extreme' } }), 'reasoning.effort', 'invalid_value'],
    ['text format type', minimal({ text: { format: { type: 'xml' } } }), 'text.format.type', 'invalid_value'],
    ['json_schema without schema', minimal({ text: { format: { type: 'json_schema', name: 'x' } } }), 'text.format.schema', 'missing_required_parameter'],
    ['metadata value', minimal({ metadata: { a: 1 } }), 'metadata.a', 'invalid_type'],
    ['stream not boolean', minimal({ stream: 'yes' }), 'stream', 'invalid_type'],
  ];
  for (const [name, body, param, code] of cases) {
    it(`${name} → ${param} (${code})`, () => {
      const err = reject(body);
      expect(err.kind).toBe('invalid_request');
      expect(err.param).toBe(param);
      expect(err.code).toBe(code);
      expect(err.message).toContain(`'${param}'`);
    });
  }

  it('the messages read like the API’s', () => {
    expect(reject({ input: 'hi' }).message).toBe("Missing required parameter: 'model'.");
    expect(reject(minimal({ input: [{ role: 'user', content: 7 }] })).message).toBe(
      "Invalid type for 'input[0].content': expected one of a string or an array, but got an integer instead.",
    );
    expect(reject(minimal({ tool_choice: 'sometimes' })).message).toBe(
      `Invalid value for 'tool_choice': "sometimes". Supported values are: 'auto', 'none' or 'required'.`,
    );
  });

  it('a body that is not an object', () => {
    const err = reject([1, 2]);
    expect(err.kind).toBe('invalid_request');
    expect(err.param).toBeUndefined();
  });

  it('a reference left for the upstream (pass-through-only plan) adds no turn; earlier output items replay as they were sent', () => {
    for (const ref of [{ type: 'item_reference', id: 'msg_1' }, { id: 'msg_1' }]) {
      const { ir } = decode(minimal({ input: [{ role: 'user', content: 'a' }, ref] }));
      expect(ir.turns).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'a' }] }]);
    }
    const { ir } = decode(
      minimal({
        input: [
          { role: 'user', content: 'a' },
          { id: 'rs_1', type: 'reasoning', encrypted_content: 'blob' },
          { id: 'rs_2', type: 'reasoning', summary: [], status: 'completed' },
          { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', phase: 'final_answer', content: [{ type: 'output_text', text: 'b', annotations: [], logprobs: [] }] },
        ],
      }),
    );
    expect(ir.turns[1]).toEqual({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: '', carry: { family: 'openai', id: 'rs_1', encryptedContent: 'blob', summary: [] } },
        { type: 'reasoning', text: '', carry: { family: 'openai', id: 'rs_2', encryptedContent: null, summary: [] } },
        { type: 'text', text: 'b' },
      ],
    });
  });

  it('media without a source, and non-base64 data URLs', () => {
    const img = reject(minimal({ input: [{ role: 'user', content: [{ type: 'input_image', detail: 'auto' }] }] }));
    expect([img.param, img.code]).toEqual(['input[0].content[0].image_url', 'missing_required_parameter']);
    const file = reject(
      minimal({ previous_response_id: 'resp_1', input: [{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_file', filename: 'a.pdf' }] }] }),
    );
    expect(file.param).toBe('input[0].output[0].file_data');
    const raw = reject(minimal({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/svg+xml,%3Csvg%3E' }] }] }));
    expect([raw.param, raw.code]).toEqual(['input[0].content[0].image_url', 'invalid_value']);
    const bad = reject(minimal({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x/y.png' }] }] }));
    expect(bad.param).toBe('input[0].content[0].image_url');
  });
});
