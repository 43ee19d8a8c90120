import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeCountTokensRequest, messagesCodec } from '../../../../src/codecs/anthropic-messages/index.js';
import { GatewayError } from '../../../../src/errors.js';
import { encodeEnvelope } from '../../../../src/ir/reasoning-envelope.js';
import type { IrRequest, ReasoningCarry, Warning } from '../../../../src/ir/types.js';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/caller/anthropic-messages/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

function decode(body: unknown): { ir: IrRequest; warnings: Warning[] } {
  const warnings: Warning[] = [];
  return { ir: messagesCodec.decodeRequest(body, warnings), warnings };
}

function base(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }], ...extra };
}

function rejection(body: unknown, count = false): GatewayError {
  try {
    if (count) decodeCountTokensRequest(body, []);
    else messagesCodec.decodeRequest(body, []);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected the request to be rejected');
}

describe('messages decodeRequest: a Claude Code request', () => {
  const body = fixture('claude-code-request.json');
  const { ir, warnings } = decode(body);

  it('keeps the scalar fields and the caller model', () => {
    expect(ir.model).toBe('claude-sonnet-4-5-20250929');
    expect(ir.maxOutputTokens).toBe(32000);
    expect(ir.stream).toBe(true);
    expect(ir.sourceProtocol).toBe('messages');
    expect(ir.stopSequences).toEqual([]);
    expect(ir.user).toBe('{"device_id":"4f1c0d2e9a7b","account_uuid":"","session_id":"0b6f3c51-8d2a-4c1e-9f7a-2e5d4c3b2a10"}');
    expect(warnings).toEqual([]);
  });

  it('keeps system blocks with cache_control and hoists role:"system" messages after them', () => {
    expect(ir.system).toStrictEqual([
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.197; cc_entrypoint=sdk-cli;' },
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cacheControl: { type: 'ephemeral' } },
      { type: 'text', text: 'Use the tools available to you to assist the user.', cacheControl: { type: 'ephemeral' } },
      { type: 'text', text: 'Available agent types: general-purpose, Explore, Plan.' },
    ]);
  });

  it('decodes the turns: thinking with native signature, text, tool_use, tool results', () => {
    expect(ir.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(ir.turns[0]!.parts).toStrictEqual([
      { type: 'text', text: "<system-reminder>\nAs you answer the user's questions, you can use the following context.\n</system-reminder>" },
      { type: 'text', text: 'List the files in the current directory.', cacheControl: { type: 'ephemeral' } },
    ]);
    expect(ir.turns[1]!.parts).toStrictEqual([
      {
        type: 'reasoning',
        text: "The user wants a directory listing; I'll run ls.",
        carry: {
          family: 'anthropic',
          block: {
            type: 'thinking',
            thinking: "The user wants a directory listing; I'll run ls.",
            signature: 'EqoBCkgIBhABGAIiQJx1Zl0uTt3Bq8d9mQ2p7Ww+AbCdEfGh/IjKlMnOpQ==',
          },
        },
      },
      { type: 'text', text: "I'll list the files." },
      {
        type: 'tool-call',
        id: 'toolu_01A09q90qw90lq917835lq9',
        name: 'Bash',
        arguments: '{"command":"ls -la","description":"List files"}',
        kind: 'function',
      },
      {
        type: 'tool-call',
        id: 'toolu_01B7cQz',
        name: 'Bash',
        arguments: '{"command":"cat secret.txt","description":"Read the file"}',
        kind: 'function',
      },
    ]);
    expect(ir.turns[2]!.parts).toStrictEqual([
      {
        type: 'tool-result',
        callId: 'toolu_01A09q90qw90lq917835lq9',
        content: [{ type: 'text', text: 'total 8\n-rw-r--r-- 1 dev dev 42 README.md' }],
        isError: false,
        kind: 'function',
        cacheControl: { type: 'ephemeral' },
      },
      {
        type: 'tool-result',
        callId: 'toolu_01B7cQz',
        content: [{ type: 'text', text: 'Exit code 1: permission denied' }],
        isError: true,
        kind: 'function',
      },
    ]);
  });

  it('decodes tools with their $schema untouched and cache_control kept', () => {
    expect(ir.tools).toHaveLength(2);
    expect(ir.tools[0]).toStrictEqual({
      name: 'Bash',
      description: 'Executes a given bash command in a persistent shell session.',
      inputSchema: (body.tools as { input_schema: unknown }[])[0]!.input_schema,
      kind: 'function',
    });
    expect(ir.tools[0]!.inputSchema!.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(ir.tools[1]!.cacheControl).toEqual({ type: 'ephemeral' });
  });

  it('maps adaptive thinking plus output_config.effort, and keeps context_management in extras', () => {
    expect(ir.reasoning).toStrictEqual({ mode: 'adaptive', effort: 'high' });
    expect(ir.extras).toStrictEqual({
      messages: { context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] } },
    });
  });
});

describe('messages decodeRequest: field mapping', () => {
  it('turns string content into one text part and defaults stream to false', () => {
    const { ir } = decode(base());
    expect(ir.turns).toStrictEqual([{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }]);
    expect(ir.stream).toBe(false);
    expect(ir.extras).toStrictEqual({});
    expect(ir.system).toEqual([]);
  });

  it('maps sampling, stop sequences, a string system prompt and enabled thinking', () => {
    const { ir } = decode(
      base({
        system: 'Be brief.',
        temperature: 0.2,
        top_p: 0.9,
        top_k: 40,
        stop_sequences: ['</answer>'],
      }),
    );
    expect(ir.system).toStrictEqual([{ type: 'text', text: 'Be brief.' }]);
    expect([ir.temperature, ir.topP, ir.topK]).toEqual([0.2, 0.9, 40]);
    expect(ir.stopSequences).toEqual(['</answer>']);
    // Sampling other than the defaults is refused with thinking (as the API does), so apart.
    const thinking = decode(base({ max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048, display: 'omitted' } })).ir;
    expect(thinking.reasoning).toStrictEqual({ mode: 'enabled', budgetTokens: 2048, display: 'omitted' });
  });

  it('maps disabled thinking and keeps effort on it', () => {
    expect(decode(base({ thinking: { type: 'disabled' }, output_config: { effort: 'low' } })).ir.reasoning).toStrictEqual({
      mode: 'disabled',
      effort: 'low',
    });
    expect(decode(base({ output_config: { effort: 'max' } })).ir.reasoning).toStrictEqual({ effort: 'max' });
  });

  it('maps output_config.format json_schema to the output format', () => {
    const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false };
    const { ir } = decode(base({ output_config: { effort: 'high', format: { type: 'json_schema', schema } } }));
    expect(ir.outputFormat).toStrictEqual({ type: 'json_schema', schema });
  });

  it.each([
    [{ type: 'auto' }, { type: 'auto' }, undefined],
    [{ type: 'any' }, { type: 'required' }, undefined],
    [{ type: 'tool', name: 'get_weather' }, { type: 'tool', name: 'get_weather' }, undefined],
    [{ type: 'none' }, { type: 'none' }, undefined],
    [{ type: 'auto', disable_parallel_tool_use: true }, { type: 'auto' }, false],
    [{ type: 'tool', name: 'x', disable_parallel_tool_use: true }, { type: 'tool', name: 'x' }, false],
  ])('maps tool_choice %j', (choice, expected, parallel) => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' } }, { name: 'x', input_schema: { type: 'object' } }];
    const { ir } = decode(base({ tools, tool_choice: choice }));
    expect(ir.toolChoice).toStrictEqual(expected);
    expect(ir.parallelToolCalls).toBe(parallel);
  });

  it('keeps custom tools (type "custom", strict) and drops Anthropic-defined tools with a warning naming tools.<i>', () => {
    const { ir, warnings } = decode(
      base({
        tools: [
          { type: 'bash_20250124', name: 'bash' },
          { type: 'custom', name: 'get_weather', input_schema: { type: 'object' }, strict: true },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
          { name: 'plain', input_schema: { type: 'object', properties: {} } },
        ],
      }),
    );
    expect(ir.tools).toStrictEqual([
      { name: 'get_weather', inputSchema: { type: 'object' }, kind: 'function', strict: true },
      { name: 'plain', inputSchema: { type: 'object', properties: {} }, kind: 'function' },
    ]);
    expect(warnings.map((w) => w.field)).toEqual(['tools.0', 'tools.2']);
    expect(warnings[0]!.message).toContain('bash_20250124');
  });

  it('keeps every unmapped top-level key verbatim in extras.messages', () => {
    const extras = {
      container: null,
      service_tier: 'auto',
      cache_control: { type: 'ephemeral' },
      inference_geo: 'us',
      speed: 'fast',
      mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'ex' }],
      output_format: { type: 'json_schema', schema: {} },
      betas: ['x'],
    };
    const { ir, warnings } = decode(base(extras));
    expect(ir.extras.messages).toStrictEqual(extras);
    expect(warnings).toEqual([]);
  });

  it('decodes images, documents and tool_result content arrays', () => {
    const { ir, warnings } = decode(
      base({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' }, cache_control: { type: 'ephemeral' } },
              { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
              { type: 'image', source: { type: 'file', file_id: 'file_011' } },
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' }, title: 'Spec' },
              { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
              { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
              { type: 'document', source: { type: 'file', file_id: 'file_022' } },
              { type: 'document', source: { type: 'content', content: 'inline doc' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_1', name: 'look', input: {} },
              { type: 'tool_use', id: 'toolu_2', name: 'look', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [
                  { type: 'text', text: 'see image' },
                  { type: 'image', source: { type: 'url', url: 'https://example.com/b.png' } },
                  { type: 'search_result', source: 'https://s', title: 't', content: [{ type: 'text', text: 'r' }] },
                ],
              },
              { type: 'tool_result', tool_use_id: 'toolu_2' },
            ],
          },
        ],
      }),
    );
    expect(ir.turns[0]!.parts).toStrictEqual([
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0K' }, cacheControl: { type: 'ephemeral' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
      { type: 'image', source: { kind: 'file-id', fileId: 'file_011' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0x' }, title: 'Spec' },
      { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'plain words' } },
      { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf' } },
      { type: 'file', source: { kind: 'file-id', fileId: 'file_022' } },
      { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'inline doc' } },
    ]);
    expect(ir.turns[2]!.parts).toStrictEqual([
      {
        type: 'tool-result',
        callId: 'toolu_1',
        content: [
          { type: 'text', text: 'see image' },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/b.png' } },
        ],
        isError: false,
        kind: 'function',
      },
      { type: 'tool-result', callId: 'toolu_2', content: [], isError: false, kind: 'function' },
    ]);
    expect(warnings).toEqual([
      { field: 'messages.content.tool_result.search_result', message: expect.stringContaining('search_result') as string },
    ]);
  });

  it('flattens a content-source document with text and images into parts, in order', () => {
    const { ir, warnings } = decode(
      base({
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'document',
                title: 'Notes',
                source: {
                  type: 'content',
                  content: [
                    { type: 'text', text: 'one' },
                    { type: 'text', text: 'two' },
                    { type: 'image', source: { type: 'url', url: 'https://example.com/c.png' } },
                    { type: 'text', text: 'three' },
                  ],
                },
              },
            ],
          },
        ],
      }),
    );
    expect(ir.turns[0]!.parts).toStrictEqual([
      { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'one\n\ntwo' }, title: 'Notes' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/c.png' } },
      { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'three' } },
    ]);
    expect(warnings.map((w) => w.field)).toEqual(['messages.content.document.content']);
  });

  it('restores our envelope from signature / data, and keeps native redacted data byte-exact', () => {
    const openai: ReasoningCarry = { family: 'openai', id: 'rs_1', encryptedContent: 'gAAAAB', summary: [{ type: 'summary_text', text: 'plan' }] };
    const chat: ReasoningCarry = { family: 'chat', text: 'hidden' };
    const { ir } = decode(
      base({
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'plan', signature: encodeEnvelope(openai) },
              { type: 'redacted_thinking', data: encodeEnvelope(chat) },
              { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
              { type: 'thinking', thinking: 'x', signature: 'sy1.not-base64-json' },
              { type: 'text', text: 'done' },
            ],
          },
        ],
      }),
    );
    expect(ir.turns[1]!.parts).toStrictEqual([
      { type: 'reasoning', text: 'plan', carry: openai },
      { type: 'reasoning', text: '', carry: chat },
      { type: 'reasoning', text: '', carry: { family: 'anthropic', block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' } } },
      // An envelope-looking blob that does not decode is kept as the caller's native signature.
      { type: 'reasoning', text: 'x', carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'x', signature: 'sy1.not-base64-json' } } },
      { type: 'text', text: 'done' },
    ]);
  });

  it('drops blocks it cannot translate, and misplaced blocks, with warnings', () => {
    const { ir, warnings } = decode(
      base({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q' }, { type: 'container_upload', file_id: 'file_1' }] },
          {
            role: 'assistant',
            content: [
              { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
              { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
              { type: 'image', source: { type: 'url', url: 'https://example.com/x.png' } },
              { type: 'text', text: 'a' },
            ],
          },
          { role: 'system', content: [{ type: 'text', text: 'late rule' }, { type: 'image', source: { type: 'url', url: 'https://example.com/u.png' } }] },
        ],
      }),
    );
    expect(ir.turns).toStrictEqual([
      { role: 'user', parts: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'a' }] },
    ]);
    expect(ir.system).toStrictEqual([{ type: 'text', text: 'late rule' }]);
    expect(warnings.map((w) => w.field)).toEqual([
      'messages.content.container_upload',
      'messages.content.server_tool_use',
      'messages.content.web_search_tool_result',
      'messages.content.image',
      'messages.content.image',
    ]);
    expect(warnings[3]!.message).toContain('assistant');
  });

  it('reports thinking types and output_config keys it cannot translate instead of failing', () => {
    const { ir, warnings } = decode(base({ thinking: { type: 'between_tools' }, output_config: { task_budget: 5 } }));
    expect(ir.reasoning).toStrictEqual({ mode: 'adaptive' });
    expect(warnings.map((w) => w.field).sort()).toEqual(['output_config', 'thinking']);
  });

  it('decodes count_tokens bodies without max_tokens', () => {
    const ir = decodeCountTokensRequest({ model: 'm', messages: [{ role: 'user', content: 'count me' }] }, []);
    expect(ir.maxOutputTokens).toBeUndefined();
    expect(ir.turns).toHaveLength(1);
    expect(ir.stream).toBe(false);
  });
});

describe('messages decodeRequest: validation errors name the field', () => {
  it.each<[string, unknown, string, string]>([
    ['missing max_tokens', { model: 'm', messages: [] }, 'max_tokens', 'max_tokens: Field required'],
    ['missing model', { max_tokens: 1, messages: [] }, 'model', 'model: Field required'],
    ['negative max_tokens', base({ max_tokens: -1 }), 'max_tokens', 'max_tokens: Input should be greater than or equal to 0'],
    ['fractional max_tokens', base({ max_tokens: 1.5 }), 'max_tokens', 'max_tokens: Input should be a valid integer'],
    ['messages not a list', base({ messages: 'hi' }), 'messages', 'messages: Input should be a valid list'],
    [
      'bad role',
      base({ messages: [{ role: 'tool', content: 'x' }] }),
      'messages.0.role',
      "messages.0.role: Input should be 'user', 'assistant' or 'system'",
    ],
    [
      'block type not a string',
      base({ messages: [{ role: 'user', content: [{ type: 5 }] }] }),
      'messages.0.content.0.type',
      'messages.0.content.0.type: Input should be a valid string',
    ],
    [
      'block without type',
      base({ messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
      'messages.0.content.0.type',
      'messages.0.content.0.type: Field required',
    ],
    [
      'bad thinking display',
      base({ thinking: { type: 'adaptive', display: 'full' } }),
      'thinking.display',
      "thinking.display: Input should be 'summarized', 'omitted' or null",
    ],
    [
      'image source missing its url',
      base({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image', source: { type: 'url' } }] }] }),
      'messages.0.content.1.source.url',
      'messages.0.content.1.source.url: Field required',
    ],
    [
      'image without source',
      base({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image' }] }] }),
      'messages.0.content.1.source',
      'messages.0.content.1.source: Field required',
    ],
    [
      'unknown image source type',
      base({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'path', path: '/x' } }] }] }),
      'messages.0.content.0.source.type',
      "messages.0.content.0.source.type: Input tag 'path' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'",
    ],
    [
      'text block without text',
      base({ messages: [{ role: 'user', content: [{ type: 'text' }] }] }),
      'messages.0.content.0.text',
      'messages.0.content.0.text: Field required',
    ],
    [
      'tool_use input not an object',
      base({ messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: '{}' }] }] }),
      'messages.0.content.0.input',
      'messages.0.content.0.input: Input should be a valid dictionary',
    ],
    [
      'tool_result content item broken',
      base({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 3 }] }] }] }),
      'messages.0.content.0.content.0.text',
      'messages.0.content.0.content.0.text: Input should be a valid string',
    ],
    ['thinking signature missing', base({ messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }] }), 'messages.0.content.0.signature', 'messages.0.content.0.signature: Field required'],
    ['system block broken', base({ system: [{ type: 'text' }] }), 'system.0.text', 'system.0.text: Field required'],
    ['custom tool without schema', base({ tools: [{ name: 'x' }] }), 'tools.0.input_schema', 'tools.0.input_schema: Field required'],
    ['typed custom tool without schema', base({ tools: [{ type: 'custom', name: 'x' }] }), 'tools.0.input_schema', 'tools.0.input_schema: Field required'],
    ['tool_choice tool without name', base({ tool_choice: { type: 'tool' } }), 'tool_choice.name', 'tool_choice.name: Field required'],
    ['unknown tool_choice', base({ tool_choice: { type: 'some' } }), 'tool_choice.type', "tool_choice.type: Input tag 'some' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'"],
    ['enabled thinking without budget', base({ thinking: { type: 'enabled' } }), 'thinking.budget_tokens', 'thinking.budget_tokens: Field required'],
    ['temperature above 1', base({ temperature: 1.5 }), 'temperature', 'temperature: Input should be less than or equal to 1'],
    ['stream not boolean', base({ stream: 'yes' }), 'stream', 'stream: Input should be a valid boolean'],
    ['json_schema format without schema', base({ output_config: { format: { type: 'json_schema' } } }), 'output_config.format.schema', 'output_config.format.schema: Field required'],
    ['metadata.user_id a number', base({ metadata: { user_id: 7 } }), 'metadata.user_id', 'metadata.user_id: Input should be a valid string'],
  ])('%s', (_name, body, param, message) => {
    const err = rejection(body);
    expect(err.kind).toBe('invalid_request');
    expect(err.param).toBe(param);
    expect(err.message.startsWith(message)).toBe(true);
  });

  it('rejects a body that is not an object', () => {
    const err = rejection([1, 2]);
    expect(err.kind).toBe('invalid_request');
    expect(err.message).toMatch(/^request body: /);
    expect(err.param).toBeUndefined();
  });

  it('count_tokens still requires model and messages', () => {
    expect(rejection({ model: 'm' }, true).param).toBe('messages');
  });
});
