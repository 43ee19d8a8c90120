// Bad requests at the Messages door, on all four lanes (pass-through to a Messages upstream, translated
// to Responses, Chat Completions and Gemini): each must be a 400 invalid_request_error whose message starts
// with the field path the way Anthropic names it, and the upstream must receive nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../../support/gateway-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Body = Record<string, unknown>;
const hi = { role: 'user', content: 'hi' };
const schema = { type: 'object', properties: { q: { type: 'string' } } };
const tool = (name: string, extra: Body = {}): Body => ({ name, input_schema: schema, ...extra });
const use = (id: string, name = 'look'): Body => ({ type: 'tool_use', id, name, input: {} });
const result = (id: string, extra: Body = {}): Body => ({ type: 'tool_result', tool_use_id: id, content: 'ok', ...extra });
const image = (source: Body): Body => ({ type: 'image', source });
const png = 'iVBORw0KGgo=';

/** [what, field path named, fields over a valid body (undefined removes one)]. */
const CASES: [string, string, Body][] = [
  // conversation structure
  ['no messages', 'messages', { messages: [] }],
  ['messages not a list', 'messages', { messages: 'hi' }],
  ['a user turn with no blocks', 'messages.0', { messages: [{ role: 'user', content: [] }] }],
  ['a user turn with empty text', 'messages.0', { messages: [{ role: 'user', content: '' }] }],
  ['an empty text block', 'messages.0.content.0.text', { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }],
  ['a whitespace-only text block', 'messages.0.content.0.text', { messages: [{ role: 'user', content: [{ type: 'text', text: ' \n\t ' }] }] }],
  ['an empty assistant turn in the middle', 'messages.1', { messages: [hi, { role: 'assistant', content: [] }, hi] }],
  ['an empty assistant string in the middle', 'messages.1', { messages: [hi, { role: 'assistant', content: '' }, hi] }],
  [
    'an empty text block in an assistant turn',
    'messages.1.content.0.text',
    { messages: [hi, { role: 'assistant', content: [{ type: 'text', text: '' }] }, hi] },
  ],
  ['a tool_result with no tool_use before it', 'messages.0.content.0.tool_use_id', { messages: [{ role: 'user', content: [result('toolu_x')] }] }],
  [
    'a tool_result answering another id',
    'messages.2.content.0.tool_use_id',
    { messages: [hi, { role: 'assistant', content: [use('toolu_1')] }, { role: 'user', content: [result('toolu_2')] }] },
  ],
  [
    'a tool_use left unanswered before the next user text',
    'messages.1',
    { messages: [hi, { role: 'assistant', content: [use('toolu_1')] }, { role: 'user', content: 'and then?' }] },
  ],
  [
    'one of two tool_use ids unanswered',
    'messages.1',
    { messages: [hi, { role: 'assistant', content: [use('toolu_1'), use('toolu_2')] }, { role: 'user', content: [result('toolu_1')] }] },
  ],
  [
    'a tool_result after text in the answering turn',
    'messages.2.content.1',
    { messages: [hi, { role: 'assistant', content: [use('toolu_1')] }, { role: 'user', content: [{ type: 'text', text: 'x' }, result('toolu_1')] }] },
  ],
  [
    'a tool_result answering a tool_use two turns back',
    'messages.4.content.0.tool_use_id',
    {
      messages: [
        hi,
        { role: 'assistant', content: [use('toolu_1')] },
        { role: 'user', content: [result('toolu_1')] },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: [result('toolu_1')] },
      ],
    },
  ],
  [
    'a repeated tool_use id',
    'messages.3.content.0.id',
    {
      messages: [
        hi,
        { role: 'assistant', content: [use('toolu_1')] },
        { role: 'user', content: [result('toolu_1')] },
        { role: 'assistant', content: [use('toolu_1')] },
        { role: 'user', content: [result('toolu_1')] },
      ],
    },
  ],
  ['an unknown block type', 'messages.0.content.0.type', { messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] }],
  ['a block without a type', 'messages.0.content.0.type', { messages: [{ role: 'user', content: [{ text: 'x' }] }] }],
  [
    'an unknown block type inside a tool_result',
    'messages.2.content.0.content.0.type',
    { messages: [hi, { role: 'assistant', content: [use('toolu_1')] }, { role: 'user', content: [result('toolu_1', { content: [{ type: 'audio' }] })] }] },
  ],
  ['an unknown role', 'messages.0.role', { messages: [{ role: 'tool', content: 'x' }] }],
  ['a text block whose text is a number', 'messages.0.content.0.text', { messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }],
  [
    'a tool_use whose input is a string',
    'messages.1.content.0.input',
    { messages: [hi, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'look', input: '{}' }] }] },
  ],
  ['an empty system text block', 'system.0.text', { system: [{ type: 'text', text: '' }] }],
  ['system as a number', 'system', { system: 7 }],
  // tools
  ['a tool name with a space', 'tools.0.name', { tools: [tool('get weather')] }],
  ['a tool name with punctuation', 'tools.0.name', { tools: [tool('get.weather!')] }],
  ['a tool name with a NUL', 'tools.0.name', { tools: [tool('get\u0000weather')] }],
  ['a tool name of 200 characters', 'tools.0.name', { tools: [tool('n'.repeat(200))] }],
  ['an empty tool name', 'tools.0.name', { tools: [tool('')] }],
  ['duplicate tool names', 'tools.1.name', { tools: [tool('look'), tool('look')] }],
  ['an input_schema of type string', 'tools.0.input_schema.type', { tools: [{ name: 'look', input_schema: { type: 'string' } }] }],
  ['an input_schema without a type', 'tools.0.input_schema.type', { tools: [{ name: 'look', input_schema: { properties: {} } }] }],
  [
    'input_schema properties that are a list',
    'tools.0.input_schema.properties',
    { tools: [{ name: 'look', input_schema: { type: 'object', properties: [{ type: 'string' }] } }] },
  ],
  [
    'a property type JSON Schema does not define',
    'tools.0.input_schema.properties.q.type',
    { tools: [{ name: 'look', input_schema: { type: 'object', properties: { q: { type: 'float' } } } }] },
  ],
  ['a tool without input_schema', 'tools.0.input_schema', { tools: [{ name: 'look' }] }],
  ['an unknown tool type', 'tools.0.type', { tools: [{ type: 'frobnicator_20250101', name: 'frob' }] }],
  ['tools not a list', 'tools', { tools: { name: 'look' } }],
  ['tool_choice naming a tool not offered', 'tool_choice.name', { tools: [tool('look')], tool_choice: { type: 'tool', name: 'find' } }],
  ['tool_choice naming a tool with no tools', 'tool_choice.name', { tool_choice: { type: 'tool', name: 'look' } }],
  ['an unknown tool_choice type', 'tool_choice.type', { tools: [tool('look')], tool_choice: { type: 'sometimes' } }],
  // numbers and limits
  ['max_tokens 1e300', 'max_tokens', { max_tokens: 1e300 }],
  ['max_tokens negative', 'max_tokens', { max_tokens: -1 }],
  ['max_tokens fractional', 'max_tokens', { max_tokens: 1.5 }],
  ['max_tokens as a string', 'max_tokens', { max_tokens: '100' }],
  ['max_tokens missing', 'max_tokens', { max_tokens: undefined }],
  ['thinking budget below 1024', 'thinking.budget_tokens', { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 512 } }],
  ['thinking budget not below max_tokens', 'max_tokens', { max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 2048 } }],
  ['an unknown thinking type', 'thinking.type', { thinking: { type: 'turbo' } }],
  [
    'thinking with a forced tool choice',
    'tool_choice',
    { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [tool('look')], tool_choice: { type: 'any' } },
  ],
  ['temperature other than 1 with thinking', 'temperature', { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, temperature: 0.5 }],
  ['top_p below 0.95 with thinking', 'top_p', { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, top_p: 0.5 }],
  ['top_k with thinking', 'top_k', { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, top_k: 5 }],
  ['a prefill ending with whitespace', 'messages.1', { messages: [hi, { role: 'assistant', content: 'The answer is ' }] }],
  [
    'a prefill whose last text block ends with a newline',
    'messages.1',
    { messages: [hi, { role: 'assistant', content: [{ type: 'text', text: 'Sure:\n' }] }] },
  ],
  ['temperature above 1', 'temperature', { temperature: 1.5 }],
  ['temperature below 0', 'temperature', { temperature: -0.1 }],
  ['top_p above 1', 'top_p', { top_p: 1.2 }],
  ['top_k negative', 'top_k', { top_k: -1 }],
  ['top_k fractional', 'top_k', { top_k: 1.5 }],
  ['a metadata key other than user_id', 'metadata.session', { metadata: { user_id: 'u', session: 's' } }],
  ['a metadata user_id over 256 characters', 'metadata.user_id', { metadata: { user_id: 'u'.repeat(300) } }],
  ['an unknown effort', 'output_config.effort', { output_config: { effort: 'turbo' } }],
  ['an unknown output format type', 'output_config.format.type', { output_config: { format: { type: 'xml', schema: {} } } }],
  ['stop_sequences not a list', 'stop_sequences', { stop_sequences: 'END' }],
  ['stream as a string', 'stream', { stream: 'yes' }],
  ['model missing', 'model', { model: undefined }],
  ['model a number', 'model', { model: 5 }],
  // media
  ['an image/bmp image', 'messages.0.content.0.source.media_type', { messages: [{ role: 'user', content: [image({ type: 'base64', media_type: 'image/bmp', data: 'Qk0=' })] }] }],
  ['an SVG image', 'messages.0.content.0.source.media_type', { messages: [{ role: 'user', content: [image({ type: 'base64', media_type: 'image/svg+xml', data: png })] }] }],
  ['image data that is not base64', 'messages.0.content.0.source.data', { messages: [{ role: 'user', content: [image({ type: 'base64', media_type: 'image/png', data: 'not base64!' })] }] }],
  ['image data of a broken length', 'messages.0.content.0.source.data', { messages: [{ role: 'user', content: [image({ type: 'base64', media_type: 'image/png', data: 'iVBORw0KG' })] }] }],
  [
    'a document that is not a PDF',
    'messages.0.content.0.source.media_type',
    { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/msword', data: png } }] }] },
  ],
  [
    'a PDF that is not base64',
    'messages.0.content.0.source.data',
    { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: '%PDF-1.7' } }] }] },
  ],
  [
    'an image/bmp inside a tool_result',
    'messages.2.content.0.content.0.source.media_type',
    {
      messages: [
        hi,
        { role: 'assistant', content: [use('toolu_1')] },
        { role: 'user', content: [result('toolu_1', { content: [image({ type: 'base64', media_type: 'image/bmp', data: 'Qk0=' })] })] },
      ],
    },
  ],
  ['an unknown image source type', 'messages.0.content.0.source.type', { messages: [{ role: 'user', content: [image({ type: 'ftp', url: 'ftp://x' })] }] }],
  ['a url image source without url', 'messages.0.content.0.source.url', { messages: [{ role: 'user', content: [image({ type: 'url' })] }] }],
  // media URLs: https: only (ir/media-url.ts); a gs:// URI would be read with the gateway's Google identity
  ['a gs:// image URL', 'messages.0.content.0.source.url', { messages: [{ role: 'user', content: [image({ type: 'url', url: 'gs://operator-bucket/a.png' })] }] }],
  [
    'a gs:// document URL',
    'messages.0.content.1.source.url',
    { messages: [{ role: 'user', content: [{ type: 'text', text: 'read' }, { type: 'document', source: { type: 'url', url: 'gs://operator-private-bucket/finance/payroll-2026.pdf' } }] }] },
  ],
  ['an http:// image URL', 'messages.0.content.0.source.url', { messages: [{ role: 'user', content: [image({ type: 'url', url: 'http://169.254.169.254/a.png' })] }] }],
  ['a file:// image URL', 'messages.0.content.0.source.url', { messages: [{ role: 'user', content: [image({ type: 'url', url: 'FILE:///etc/passwd' })] }] }],
  [
    'a gs:// image inside a tool_result',
    'messages.2.content.0.content.0.source.url',
    {
      messages: [
        hi,
        { role: 'assistant', content: [use('toolu_1')] },
        { role: 'user', content: [result('toolu_1', { content: [image({ type: 'url', url: 'gs://operator-bucket/a.png' })] })] },
      ],
    },
  ],
  [
    'a gs:// image inside a content-source document',
    'messages.0.content.0.source.content.0.source.url',
    { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: [image({ type: 'url', url: 'gs://b/a.png' })] } }] }] },
  ],
];

const LANES: UpstreamProtocol[] = ['messages', 'responses', 'chat', 'gemini'];
const ROWS = LANES.flatMap((lane) => CASES.map(([what, path, over]) => [lane, what, path, over] as const));

describe('the Messages door refuses what the Messages API refuses, on every lane, before any upstream call', () => {
  it('covers the table on the four lanes', () => {
    expect(ROWS.length).toBe(CASES.length * LANES.length);
  });

  it.each(ROWS)('%s lane: %s → %s', async (lane, _what, path, over) => {
    const body = { model: MODELS[lane].alias, max_tokens: 256, messages: [hi], ...over };
    const res = await fetch(h.url + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(400);
    const parsed = JSON.parse(text) as { type: string; error: { type: string; message: string } };
    expect(parsed.type).toBe('error');
    expect(parsed.error.type).toBe('invalid_request_error');
    expect(parsed.error.message.startsWith(path + ': '), parsed.error.message).toBe(true);
    expect(h.upstream.received).toHaveLength(0);
  });

  it('the same door still serves a valid request on each lane (the suite is not refusing everything)', async () => {
    for (const lane of LANES) {
      const res = await h.anthropic.messages.create({ model: MODELS[lane].alias, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
      expect(res.type).toBe('message');
    }
    expect(h.upstream.received).toHaveLength(LANES.length);
  });
});
