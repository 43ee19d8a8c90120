// The Gemini door's request decoder: every mapped field, the pairing of calls and responses, the
// reasoning state carried in thoughtSignature, and the refusals (400s naming the field).
import { describe, expect, it } from 'vitest';
import { decodeCountRequest, decodeGenerateRequest } from '../../../../src/codecs/gemini/decode-request.js';
import { GatewayError } from '../../../../src/errors.js';
import { encodeEnvelope } from '../../../../src/ir/reasoning-envelope.js';
import { mediaUrlRule } from '../../../../src/ir/media-url.js';
import type { IrRequest, Warning } from '../../../../src/ir/types.js';

const user = (text: string) => ({ role: 'user', parts: [{ text }] });

function decode(body: unknown, warnings: Warning[] = []): IrRequest {
  return decodeGenerateRequest(body, 'gemini-2.5-flash', false, warnings);
}

function refusal(body: unknown): GatewayError {
  try {
    decode(body);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('not refused');
}

describe('Gemini door decode', () => {
  it('maps contents, system instruction and generation settings', () => {
    const ir = decodeGenerateRequest(
      {
        contents: [user('Hi'), { role: 'model', parts: [{ text: 'Hello' }] }, user('More')],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        generationConfig: { maxOutputTokens: 100, temperature: 0.5, topP: 0.9, topK: 40, stopSequences: ['X'] },
      },
      'm-1',
      true,
      [],
    );
    expect(ir).toMatchObject({ model: 'm-1', stream: true, sourceProtocol: 'gemini', maxOutputTokens: 100, temperature: 0.5, topP: 0.9, topK: 40, stopSequences: ['X'] });
    expect(ir.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(ir.turns).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Hello' }] },
      { role: 'user', parts: [{ type: 'text', text: 'More' }] },
    ]);
    expect(ir.passthroughOnly).toBeUndefined();
  });

  it('media: inlineData by MIME type; fileData under the media-URL rule', () => {
    const ir = decode({
      contents: [
        {
          role: 'user',
          parts: [
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
            { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/a.jpg' } },
          ],
        },
      ],
    });
    expect(ir.turns[0]!.parts).toEqual([
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
    ]);
    const gs = { contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'image/png', fileUri: 'gs://bucket/a.png' } }] }] };
    const err = refusal(gs);
    expect(err.param).toBe('contents[0].parts[0].fileData.fileUri');
    expect(decodeGenerateRequest(gs, 'm', false, [], mediaUrlRule(['gs://bucket/'])).turns[0]!.parts[0]).toMatchObject({ type: 'image' });
    expect(refusal({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'not base64!' } }] }] }).param).toBe('contents[0].parts[0].inlineData.data');
  });

  it('function calls and responses pair by id, else by name in order', () => {
    const ir = decode({
      contents: [
        user('Weather?'),
        { role: 'model', parts: [{ functionCall: { name: 'w', args: { city: 'A' } } }, { functionCall: { id: 'c2', name: 'w', args: { city: 'B' } } }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'c2', name: 'w', response: { output: 'B: 2C' } } },
            { functionResponse: { name: 'w', response: { error: 'no data' } } },
          ],
        },
      ],
    });
    const calls = ir.turns[1]!.parts;
    expect(calls).toEqual([
      { type: 'tool-call', id: 'gcall_1_0', name: 'w', arguments: '{"city":"A"}', kind: 'function' },
      { type: 'tool-call', id: 'c2', name: 'w', arguments: '{"city":"B"}', kind: 'function' },
    ]);
    expect(ir.turns[2]!.parts).toEqual([
      { type: 'tool-result', callId: 'c2', content: [{ type: 'text', text: 'B: 2C' }], isError: false, kind: 'function' },
      { type: 'tool-result', callId: 'gcall_1_0', content: [{ type: 'text', text: 'no data' }], isError: true, kind: 'function' },
    ]);
  });

  it('a functionResponse without its call is a 400 naming the part', () => {
    const err = refusal({ contents: [user('x'), { role: 'user', parts: [{ functionResponse: { name: 'w', response: {} } }] }] });
    expect(err.kind).toBe('invalid_request');
    expect(err.param).toBe('contents[1].parts[0].functionResponse');
  });

  it('thoughtSignature: the envelope restores another family byte-exact; a foreign one is Google state', () => {
    const block = { type: 'thinking' as const, thinking: 'plan', signature: 'EqQBCkYIBxgC+/==' };
    const env = encodeEnvelope({ family: 'anthropic', block });
    const ir = decode({
      contents: [
        user('Q'),
        { role: 'model', parts: [{ text: 'summary', thought: true }, { functionCall: { id: 'a', name: 'f', args: {} }, thoughtSignature: env }] },
        { role: 'user', parts: [{ functionResponse: { id: 'a', name: 'f', response: { output: 'ok' } } }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'Q2lR+google==' }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'ok' } } }] },
      ],
    });
    expect(ir.turns[1]!.parts.slice(1, 2)).toEqual([{ type: 'reasoning', text: 'plan', carry: { family: 'anthropic', block } }]);
    expect(ir.turns[3]!.parts[0]).toEqual({ type: 'reasoning', text: '', carry: { family: 'google', signature: 'Q2lR+google==', on: 'next' } });
  });

  it('tools: JSON Schema as given, OpenAPI parameters turned into JSON Schema; tool config', () => {
    const ir = decode({
      contents: [user('x')],
      tools: [
        {
          functionDeclarations: [
            { name: 'a', parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } } } },
            { name: 'b', description: 'B', parameters: { type: 'OBJECT', properties: { n: { type: 'INTEGER', nullable: true } }, required: ['n'], propertyOrdering: ['n'] } },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['b'] } },
    });
    expect(ir.tools).toEqual([
      { name: 'a', description: undefined, inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, kind: 'function' },
      { name: 'b', description: 'B', inputSchema: { type: 'object', properties: { n: { type: ['integer', 'null'] } }, required: ['n'] }, kind: 'function' },
    ]);
    expect(ir.toolChoice).toEqual({ type: 'tool', name: 'b' });
    const modes = (mode: string, names?: string[]) =>
      decode({ contents: [user('x')], tools: [{ functionDeclarations: [{ name: 'a' }, { name: 'b' }] }], toolConfig: { functionCallingConfig: { mode, allowedFunctionNames: names } } }).toolChoice;
    expect(modes('AUTO')).toEqual({ type: 'auto' });
    expect(modes('ANY')).toEqual({ type: 'required' });
    expect(modes('ANY', ['a', 'b'])).toEqual({ type: 'allowed', mode: 'required', names: ['a', 'b'] });
    expect(modes('NONE')).toEqual({ type: 'none' });
    expect(modes('VALIDATED')).toEqual({ type: 'auto' });
  });

  it('thinking and output format', () => {
    const cfg = (generationConfig: object) => decode({ contents: [user('x')], generationConfig });
    expect(cfg({ thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } }).reasoning).toEqual({ mode: 'enabled', budgetTokens: 2048, summary: 'auto', display: 'summarized' });
    expect(cfg({ thinkingConfig: { thinkingBudget: 0 } }).reasoning).toMatchObject({ mode: 'disabled' });
    expect(cfg({ thinkingConfig: { thinkingBudget: -1 } }).reasoning).toMatchObject({ mode: 'adaptive' });
    expect(cfg({ thinkingConfig: { thinkingLevel: 'HIGH' } }).reasoning).toMatchObject({ mode: 'adaptive', effort: 'high' });
    expect(cfg({ responseMimeType: 'application/json' }).outputFormat).toEqual({ type: 'json_object' });
    expect(cfg({ responseMimeType: 'application/json', responseJsonSchema: { type: 'object' } }).outputFormat).toEqual({ type: 'json_schema', name: 'response', schema: { type: 'object' } });
    expect(cfg({ responseMimeType: 'application/json', responseSchema: { type: 'STRING' } }).outputFormat).toEqual({ type: 'json_schema', name: 'response', schema: { type: 'string' } });
  });

  it('Gemini-only fields mark the request; safetySettings and unknown keys are warnings', () => {
    const warnings: Warning[] = [];
    const ir = decode(
      {
        contents: [user('x')],
        generationConfig: { candidateCount: 2 },
        tools: [{ googleSearch: {} }],
        cachedContent: 'cachedContents/abc',
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
        labels: { a: 'b' },
      },
      warnings,
    );
    expect(ir.passthroughOnly).toEqual({
      param: 'generationConfig.candidateCount',
      message: "generationConfig.candidateCount, tools[0].googleSearch, cachedContent: only supported when the model is served by a Gemini upstream; model 'gemini-2.5-flash' is not",
    });
    expect(warnings.map((w) => w.field)).toEqual(['safetySettings', 'extras']);
  });

  it('bad input: 400s that name the field', () => {
    expect(refusal([]).message).toMatch(/JSON object/);
    expect(refusal({}).param).toBe('contents');
    expect(refusal({ contents: [] }).param).toBe('contents');
    expect(refusal({ contents: [{ role: 'user', parts: [] }] }).param).toBe('contents[0].parts');
    expect(refusal({ contents: [{ role: 'system', parts: [{ text: 'x' }] }] }).param).toBe('contents[0].role');
    expect(refusal({ contents: [{ role: 'user', parts: [{ text: 5 }] }] }).param).toBe('contents[0].parts[0].text');
    expect(refusal({ contents: [{ role: 'user', parts: [{ hologram: {} }] }] }).message).toMatch(/unknown part kind "hologram"/);
    expect(refusal({ contents: [{ role: 'user', parts: [{ executableCode: { code: 'x' } }] }] }).message).toMatch(/executableCode parts are not supported/);
    expect(refusal({ contents: [{ role: 'user', parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: '' } }] }] }).message).toMatch(/exactly one/);
    expect(refusal({ contents: [{ role: 'user', parts: [{ functionCall: { name: 'f' } }] }] }).message).toMatch(/model turn/);
    expect(refusal({ contents: [user('x')], generationConfig: { temperature: 3 } }).param).toBe('generationConfig.temperature');
    expect(refusal({ contents: [user('x')], tools: [{ functionDeclarations: [{ name: '9bad' }] }] }).param).toBe('tools[0].functionDeclarations[0].name');
    expect(refusal({ contents: [user('x')], toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['nope'] } } }).param).toBe(
      'toolConfig.functionCallingConfig.allowedFunctionNames[0]',
    );
  });

  it('countTokens takes generateContentRequest or bare contents', () => {
    expect(decodeCountRequest({ contents: [user('a')] }, 'm', []).turns).toHaveLength(1);
    expect(decodeCountRequest({ generateContentRequest: { model: 'models/m', contents: [user('a')], systemInstruction: { parts: [{ text: 's' }] } } }, 'm', []).system).toHaveLength(1);
  });
});
