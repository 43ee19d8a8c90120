import { describe, expect, it } from 'vitest';
import { geminiDriver } from '../../../../src/drivers/gemini/index.js';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import { mediaUrlRule } from '../../../../src/ir/media-url.js';
import type { IrRequest, ToolDefinition, Warning } from '../../../../src/ir/types.js';
import { decodeChunks, fixture, request, target } from './support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function encode(req: IrRequest, model = 'gemini-2.5-flash', stream = true): { path: string; headers: Record<string, string>; body: Json; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const enc = geminiDriver.encodeRequest(req, target(model), stream, warnings);
  return { path: enc.path, headers: enc.headers, body: JSON.parse(enc.body) as Json, warnings };
}

const WEATHER: ToolDefinition = { name: 'get_weather', kind: 'function', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

describe('gemini encodeRequest', () => {
  it('paths, key header, system, roles, generationConfig', () => {
    const { path, headers, body } = encode(
      request({
        system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Be kind.' }],
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'Hello.' }] },
          { role: 'user', parts: [{ type: 'text', text: 'Count' }] },
        ],
        maxOutputTokens: 100,
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'],
      }),
    );
    expect(path).toBe('/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' });
    expect(body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts: [{ text: 'Hello.' }] },
        { role: 'user', parts: [{ text: 'Count' }] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Be kind.' }] },
      generationConfig: { maxOutputTokens: 100, temperature: 0.2, topP: 0.9, topK: 40, stopSequences: ['a', 'b', 'c', 'd', 'e'] },
    });
    expect(geminiDriver.encodeRequest(request(), target('models/gemini-2.5-pro'), false, []).path).toBe('/models/gemini-2.5-pro:generateContent');
  });

  it('media: base64 → inlineData, URL → fileData with a MIME type from the extension, text documents → text; file ids refused', () => {
    const { body } = encode(
      request({
        turns: [
          {
            role: 'user',
            parts: [
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.JPG?x=1' } },
              { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' } },
              { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'notes' }, title: 'Notes' },
            ],
          },
        ],
      }),
    );
    expect(body.contents[0].parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.JPG?x=1' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } },
      { text: 'Notes\n\nnotes' },
    ]);
    expect(() => encode(request({ turns: [{ role: 'user', parts: [{ type: 'image', source: { kind: 'file-id', fileId: 'file_1' } }] }] }))).toThrow(/provider-scoped/);
  });

  it('tool calls and results: names found by id, ids only when the upstream made them, missing results answered, orphans as text', () => {
    const { body, warnings } = encode(
      request({
        tools: [WEATHER],
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Paris and Rome?' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'tool-call', id: 'syg_r_0', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
              { type: 'tool-call', id: 'fc-9', name: 'get_weather', arguments: '{"city":"Rome"}', kind: 'function' },
              { type: 'tool-call', id: 'syg_r_2', name: 'get_weather', arguments: '{"city":"Oslo"}', kind: 'function' },
            ],
          },
          {
            role: 'user',
            parts: [
              { type: 'tool-result', callId: 'fc-9', content: [{ type: 'text', text: 'rain' }], isError: false, kind: 'function' },
              { type: 'tool-result', callId: 'syg_r_0', content: [{ type: 'text', text: 'sun' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'QQ==' } }], isError: false, kind: 'function' },
              { type: 'tool-result', callId: 'elsewhere', content: [{ type: 'text', text: 'lost' }], isError: true, kind: 'function' },
            ],
          },
        ],
      }),
    );
    expect(body.contents[1]).toEqual({
      role: 'model',
      parts: [
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
        { functionCall: { id: 'fc-9', name: 'get_weather', args: { city: 'Rome' } } },
        { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
      ],
    });
    expect(body.contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { output: 'sun' } } },
        { functionResponse: { id: 'fc-9', name: 'get_weather', response: { output: 'rain' } } },
        { functionResponse: { name: 'get_weather', response: { error: 'Tool call was not completed.' } } },
        { inlineData: { mimeType: 'image/png', data: 'QQ==' } },
        { text: 'Result of tool call elsewhere:\nlost' },
      ],
    });
    expect(warnings.map((w) => w.field)).toEqual(['tool_result']);
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: WEATHER.inputSchema }] }]);
  });

  it('every tool_choice form (gemini.md §5)', () => {
    const tools: ToolDefinition[] = [WEATHER, { ...WEATHER, name: 'get_time' }];
    const choice = (toolChoice: IrRequest['toolChoice']) => {
      const { body } = encode(request({ tools, toolChoice }));
      return { config: body.toolConfig, names: body.tools?.[0]?.functionDeclarations.map((d: Json) => d.name) };
    };
    expect(choice(undefined)).toEqual({ config: undefined, names: ['get_weather', 'get_time'] });
    expect(choice({ type: 'auto' }).config).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(choice({ type: 'none' }).config).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(choice({ type: 'required' }).config).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(choice({ type: 'tool', name: 'get_time' }).config).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } });
    expect(choice({ type: 'allowed', mode: 'required', names: ['get_time'] })).toEqual({
      config: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } },
      names: ['get_weather', 'get_time'],
    });
    expect(choice({ type: 'allowed', mode: 'auto', names: ['get_time'] })).toEqual({ config: { functionCallingConfig: { mode: 'AUTO' } }, names: ['get_time'] });
  });

  it('schemas in Gemini\'s subset: const → enum, definitions → $defs, the rest dropped with one warning', () => {
    const tool: ToolDefinition = {
      name: 'edit',
      kind: 'function',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        additionalProperties: false,
        properties: {
          mode: { const: 'replace' },
          path: { type: 'string', minLength: 1, pattern: '^/' },
          items: { type: 'array', items: { $ref: '#/definitions/Item' }, uniqueItems: true },
          either: { oneOf: [{ type: 'string' }, { type: 'integer', exclusiveMinimum: 0 }] },
          flag: { type: ['boolean', 'null'], default: false, enum: [true, false] },
        },
        definitions: { Item: { type: 'object', properties: { n: { type: 'number' } } } },
        required: ['path'],
      },
    };
    const { body, warnings } = encode(request({ tools: [tool] }));
    expect(body.tools[0].functionDeclarations[0].parametersJsonSchema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        mode: { enum: ['replace'] },
        path: { type: 'string' },
        items: { type: 'array', items: { $ref: '#/$defs/Item' } },
        either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        flag: { type: ['boolean', 'null'] },
      },
      $defs: { Item: { type: 'object', properties: { n: { type: 'number' } } } },
      required: ['path'],
    });
    expect(warnings).toEqual([
      { field: 'tools', message: 'tool edit: JSON Schema keywords Gemini does not accept were dropped: $schema, default, enum (non-string values), exclusiveMinimum, minLength, pattern, uniqueItems' },
    ]);
    expect(tool.inputSchema!.properties).toHaveProperty('path.minLength', 1); // the caller's schema is untouched
  });

  it('custom tools become functions taking {input}; parallel_tool_calls=false is a warning', () => {
    const { body, warnings } = encode(
      request({
        tools: [{ name: 'apply_patch', kind: 'custom', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } }],
        parallelToolCalls: false,
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'patch' }] },
          { role: 'assistant', parts: [{ type: 'tool-call', id: 'syg_a_0', name: 'apply_patch', arguments: '*** Begin', kind: 'custom' }] },
          { role: 'user', parts: [{ type: 'tool-result', callId: 'syg_a_0', content: [{ type: 'text', text: 'ok' }], isError: false, kind: 'custom' }] },
        ],
      }),
    );
    const decl = body.tools[0].functionDeclarations[0];
    expect(decl.parametersJsonSchema.properties.input.description).toContain('lark grammar:\nstart: "x"');
    expect(body.contents[1].parts[0]).toEqual({ functionCall: { name: 'apply_patch', args: { input: '*** Begin' } } });
    expect(warnings.map((w) => w.field)).toEqual(['parallel_tool_calls']);
  });

  it('structured output: JSON mode, schema in the subset', () => {
    expect(encode(request({ outputFormat: { type: 'json_object' } })).body.generationConfig).toEqual({ responseMimeType: 'application/json' });
    const { body } = encode(request({ outputFormat: { type: 'json_schema', name: 'x', schema: { type: 'object', properties: { a: { type: 'string', maxLength: 3 } } } } }));
    expect(body.generationConfig).toEqual({ responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { a: { type: 'string' } } } });
  });

  it('thinking: budgets for 2.5, levels for 3, efforts and Anthropic budgets by size', () => {
    const thinking = (reasoning: IrRequest['reasoning'], model: string) => encode(request({ reasoning }), model).body.generationConfig?.thinkingConfig;
    expect(thinking({ mode: 'enabled', budgetTokens: 4000 }, 'gemini-2.5-flash')).toEqual({ includeThoughts: true, thinkingBudget: 4000 });
    expect(thinking({ mode: 'enabled', budgetTokens: 4000 }, 'gemini-3-pro-preview')).toEqual({ includeThoughts: true, thinkingLevel: 'MEDIUM' });
    expect(thinking({ effort: 'high', summary: 'auto' }, 'gemini-3-flash')).toEqual({ includeThoughts: true, thinkingLevel: 'HIGH' });
    expect(thinking({ effort: 'low' }, 'gemini-2.5-pro')).toEqual({ includeThoughts: true, thinkingBudget: 1024 });
    expect(thinking({ mode: 'adaptive' }, 'gemini-2.5-pro')).toEqual({ includeThoughts: true, thinkingBudget: -1 });
    expect(thinking({ mode: 'enabled', budgetTokens: 2000, display: 'omitted' }, 'gemini-2.5-flash')).toEqual({ thinkingBudget: 2000 });
    expect(thinking({ mode: 'disabled' }, 'gemini-2.5-flash')).toEqual({ thinkingBudget: 0 });
    const off = encode(request({ reasoning: { effort: 'none' } }), 'gemini-3-pro-preview');
    expect(off.body.generationConfig.thinkingConfig).toEqual({ thinkingLevel: 'LOW' });
    expect(off.warnings.map((w) => w.field)).toEqual(['reasoning']);
    expect(thinking(undefined, 'gemini-3-pro-preview')).toBeUndefined();
  });

  it('decoded thoughts and signatures go back exactly as they came (every fixture with signatures)', () => {
    const cases: [string, Json[]][] = [
      [
        'thinking-parallel-calls.sse',
        [
          { text: '**Checking both cities**\n\nThe user wants Paris and Rome.', thought: true },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQBjz1rX2sigParis/+==' },
          { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
        ],
      ],
      ['signed-text.sse', [{ text: 'The answer is 42.' }, { text: '', thoughtSignature: 'EsgBCsUBAXLI2nxTextSig==' }]],
      [
        'signed-thought.sse',
        [
          { text: 'Let me think ', thought: true },
          { text: 'about it.', thought: true, thoughtSignature: 'Cv0BThoughtSig/2.5==' },
          { text: 'Done thinking.' },
        ],
      ],
      [
        'call-ids.sse',
        [
          { functionCall: { id: 'ab12cd34', name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'SigWithId==' },
          { functionCall: { id: 'syg_not_ours', name: 'get_weather', args: {} } },
        ],
      ],
    ];
    for (const [name, parts] of cases) {
      const answer = foldEvents(decodeChunks(request({ tools: [WEATHER] }), [fixture(name)]));
      const next = request({ tools: [WEATHER], turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', parts: answer.content }] });
      expect(encode(next).body.contents[1], name).toEqual({ role: 'model', parts });
    }
  });

  it('Gemini 3: a step whose first call has no signature gets Google\'s stand-in, once warned; 2.5: nothing added', () => {
    const history = request({
      tools: [WEATHER],
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Paris and Rome?' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'hmm', carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'hmm', signature: 'sig' } } },
            { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
            { type: 'tool-call', id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Rome"}', kind: 'function' },
          ],
        },
        { role: 'user', parts: [{ type: 'tool-result', callId: 'toolu_1', content: [{ type: 'text', text: 'sun' }], isError: false, kind: 'function' }] },
        { role: 'assistant', parts: [{ type: 'tool-call', id: 'toolu_3', name: 'get_weather', arguments: '{"city":"Oslo"}', kind: 'function' }] },
      ],
    });
    const three = encode(history, 'gemini-3-pro-preview');
    expect(three.body.contents[1].parts.map((p: Json) => p.thoughtSignature)).toEqual(['skip_thought_signature_validator', undefined]);
    expect(three.body.contents[3].parts[0].thoughtSignature).toBe('skip_thought_signature_validator');
    expect(three.warnings.map((w) => w.field)).toEqual(['reasoning', 'reasoning']); // the dropped Anthropic state, the stand-in
    const two = encode(history, 'gemini-2.5-pro');
    expect(two.body.contents[1].parts.map((p: Json) => p.thoughtSignature)).toEqual([undefined, undefined]);
  });

  it('reasoning of another family is dropped with one warning', () => {
    const { body, warnings } = encode(
      request({
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: 'hmm', carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'hmm', signature: 'sig' } } },
              { type: 'reasoning', text: 'more', carry: { family: 'chat', text: 'more' } },
              { type: 'text', text: 'Hello.' },
            ],
          },
        ],
      }),
    );
    expect(body.contents[1]).toEqual({ role: 'model', parts: [{ text: 'Hello.' }] });
    expect(warnings.map((w) => w.field)).toEqual(['reasoning']);
  });

  it('countTokens wraps the request with the model and no generationConfig', () => {
    const enc = geminiDriver.countTokensRequest(request({ maxOutputTokens: 5, system: [{ type: 'text', text: 'S' }] }), target('gemini-2.5-pro'), undefined)!;
    expect(enc.path).toBe('/models/gemini-2.5-pro:countTokens');
    expect(JSON.parse(enc.body)).toEqual({
      generateContentRequest: { model: 'models/gemini-2.5-pro', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], systemInstruction: { parts: [{ text: 'S' }] } },
    });
    expect(geminiDriver.decodeCount!({ totalTokens: 12 })).toBe(12);
  });
});

describe('gemini encodeRequest: fileData.fileUri under the media-URL rule', () => {
  const gsPart = (url: string): IrRequest =>
    request({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'read' }, { type: 'file', source: { kind: 'url', url } }] }] });

  it('refuses a gs:// URI when the provider allows none (the default): Vertex would read it as the gateway', () => {
    expect(() => geminiDriver.encodeRequest(gsPart('gs://operator-private-bucket/finance/payroll-2026.pdf'), target(), false, [])).toThrow(
      expect.objectContaining({ kind: 'invalid_request', param: 'messages.0.content.1', message: 'fileData.fileUri: media URLs must be https:// (or data:) URLs; got a gs: URL' }),
    );
    // Counting sends the contents too.
    expect(() => geminiDriver.countTokensRequest(gsPart('gs://operator-bucket/a.pdf'), target(), undefined)).toThrow(/fileData\.fileUri/);
  });

  it('sends a URI under a prefix the provider allows, and nothing outside it', () => {
    const allowed = { ...target(), mediaUrls: mediaUrlRule(['gs://public-assets/']) };
    const enc = geminiDriver.encodeRequest(gsPart('gs://public-assets/report.pdf'), allowed, false, []);
    expect(JSON.parse(enc.body).contents[0].parts[1]).toEqual({ fileData: { mimeType: 'application/pdf', fileUri: 'gs://public-assets/report.pdf' } });
    expect(() => geminiDriver.encodeRequest(gsPart('gs://public-assets/../payroll/a.pdf'), allowed, false, [])).toThrow(/fileData\.fileUri/);
    expect(() => geminiDriver.encodeRequest(gsPart('gs://operator-private-bucket/a.pdf'), allowed, false, [])).toThrow(/fileData\.fileUri/);
  });
});
