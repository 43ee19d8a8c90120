// Bad requests at the Responses door, on all four lanes (pass-through to a Responses upstream,
// translated to Messages, Chat Completions and Gemini): each must be a 400 invalid_request_error with the
// field in `param` the way OpenAI spells it (and the OpenAI `code` where it gives one), and the
// upstream must receive nothing.
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
const user = (content: unknown): Body => ({ role: 'user', content });
const call = (callId: string, name = 'look'): Body => ({ type: 'function_call', call_id: callId, name, arguments: '{}' });
const output = (callId: string): Body => ({ type: 'function_call_output', call_id: callId, output: 'ok' });
const fn = (name: string, extra: Body = {}): Body => ({ type: 'function', name, parameters: { type: 'object', properties: {} }, ...extra });
const imagePart = (url: string): Body => ({ type: 'input_image', image_url: url });
const png = 'iVBORw0KGgo=';

/** [what, param, code or null when not asserted, fields over a valid body (undefined removes one)]. */
const CASES: [string, string, string | null, Body][] = [
  // conversation structure
  ['an empty input list', 'input', 'empty_array', { input: [] }],
  ['no input at all', 'input', 'missing_required_parameter', { input: undefined }],
  ['input a number', 'input', 'invalid_type', { input: 42 }],
  ['a user message with no parts', 'input[0].content', 'empty_array', { input: [user([])] }],
  ['a user message with empty text', 'input[0].content', 'empty_string', { input: [user('')] }],
  ['a function_call_output with no call before it', 'input[1].call_id', null, { input: [user('hi'), output('call_x')] }],
  ['a function_call_output answering another id', 'input[2].call_id', null, { input: [user('hi'), call('call_1'), output('call_2')] }],
  ['a call left unanswered before the next user text', 'input[1].call_id', null, { input: [user('hi'), call('call_1'), user('and?')] }],
  [
    'one of two calls unanswered before the next user text',
    'input[2].call_id',
    null,
    { input: [user('hi'), call('call_1'), call('call_2'), output('call_1'), user('and?')] },
  ],
  [
    'a custom_tool_call_output with no call before it',
    'input[1].call_id',
    null,
    { input: [user('hi'), { type: 'custom_tool_call_output', call_id: 'ct_1', output: 'ok' }] },
  ],
  ['an unknown item type', 'input[0].type', 'invalid_value', { input: [{ type: 'hologram', data: 1 }] }],
  ['an unknown content part type', 'input[0].content[0].type', 'invalid_value', { input: [user([{ type: 'input_video', url: 'x' }])] }],
  ['an unknown role', 'input[0].role', 'invalid_value', { input: [{ role: 'tool', content: 'x' }] }],
  ['a function_call without call_id', 'input[1].call_id', 'missing_required_parameter', { input: [user('hi'), { type: 'function_call', name: 'look', arguments: '{}' }] }],
  ['function_call arguments as an object', 'input[1].arguments', 'invalid_type', { input: [user('hi'), { ...call('call_1'), arguments: {} }] }],
  ['a function_call_output without output', 'input[2].output', 'missing_required_parameter', { input: [user('hi'), call('call_1'), { type: 'function_call_output', call_id: 'call_1' }] }],
  // Translation lanes only: a pass-through plan forwards an unresolved reference (OpenAI resolves its own items).
  ['an item_reference (no stored items here)', 'input[0]', 'invalid_value', { input: [{ type: 'item_reference', id: 'msg_1' }] }],
  ['message content a number', 'input[0].content', 'invalid_type', { input: [user(7)] }],
  ['input_text text a number', 'input[0].content[0].text', 'invalid_type', { input: [user([{ type: 'input_text', text: 1 }])] }],
  // tools
  ['a function name with a space', 'tools[0].name', 'invalid_value', { tools: [fn('get weather')] }],
  ['a function name with punctuation', 'tools[0].name', 'invalid_value', { tools: [fn('get.weather!')] }],
  ['a function name with a NUL', 'tools[0].name', 'invalid_value', { tools: [fn('get\u0000weather')] }],
  ['a function name of 65 characters', 'tools[0].name', 'string_above_max_length', { tools: [fn('n'.repeat(65))] }],
  ['a function name of 200 characters', 'tools[0].name', 'string_above_max_length', { tools: [fn('n'.repeat(200))] }],
  ['an empty function name', 'tools[0].name', 'empty_string', { tools: [fn('')] }],
  ['duplicate function names', 'tools[1].name', 'invalid_value', { tools: [fn('look'), fn('look')] }],
  ['a custom tool name with a space', 'tools[0].name', 'invalid_value', { tools: [{ type: 'custom', name: 'apply patch' }] }],
  [
    'duplicate names inside a namespace',
    'tools[0].tools[1].name',
    'invalid_value',
    { tools: [{ type: 'namespace', name: 'ns', tools: [fn('look'), fn('look')] }] },
  ],
  ['parameters of type string', 'tools[0].parameters', 'invalid_function_parameters', { tools: [fn('look', { parameters: { type: 'string' } })] }],
  [
    'parameters with properties but no type',
    'tools[0].parameters',
    'invalid_function_parameters',
    { tools: [fn('look', { parameters: { properties: { q: { type: 'string' } } } })] },
  ],
  [
    'parameters properties that are a list',
    'tools[0].parameters.properties',
    'invalid_type',
    { tools: [fn('look', { parameters: { type: 'object', properties: [] } })] },
  ],
  [
    'a property type JSON Schema does not define',
    'tools[0].parameters.properties.q.type',
    'invalid_value',
    { tools: [fn('look', { parameters: { type: 'object', properties: { q: { type: 'float' } } } })] },
  ],
  ['parameters as a string', 'tools[0].parameters', 'invalid_type', { tools: [fn('look', { parameters: '{}' })] }],
  ['an unknown tool type', 'tools[0].type', 'invalid_value', { tools: [{ type: 'teleporter' }] }],
  ['a Chat-shaped function tool', 'tools[0].name', 'missing_required_parameter', { tools: [{ type: 'function', function: { name: 'look', parameters: {} } }] }],
  ['tool_choice naming a function not offered', 'tool_choice.name', 'invalid_value', { tools: [fn('look')], tool_choice: { type: 'function', name: 'find' } }],
  ['tool_choice naming a function with no tools', 'tool_choice.name', 'invalid_value', { tool_choice: { type: 'function', name: 'look' } }],
  ['an unknown tool_choice mode', 'tool_choice', 'invalid_value', { tool_choice: 'always' }],
  [
    'allowed_tools naming a function not offered',
    'tool_choice.tools[0].name',
    'invalid_value',
    { tools: [fn('look')], tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'find' }] } },
  ],
  // numbers and limits
  ['max_output_tokens 1e300', 'max_output_tokens', 'integer_above_max_value', { max_output_tokens: 1e300 }],
  ['max_output_tokens negative', 'max_output_tokens', 'integer_below_min_value', { max_output_tokens: -5 }],
  ['max_output_tokens below 16', 'max_output_tokens', 'integer_below_min_value', { max_output_tokens: 8 }],
  ['max_output_tokens fractional', 'max_output_tokens', 'invalid_type', { max_output_tokens: 100.5 }],
  ['temperature above 2', 'temperature', 'decimal_above_max_value', { temperature: 2.5 }],
  ['temperature below 0', 'temperature', 'decimal_below_min_value', { temperature: -1 }],
  ['top_p above 1', 'top_p', 'decimal_above_max_value', { top_p: 1.5 }],
  ['top_logprobs above 20', 'top_logprobs', 'integer_above_max_value', { top_logprobs: 30 }],
  ['metadata with 17 keys', 'metadata', 'object_above_max_properties', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }],
  ['a metadata value over 512 characters', 'metadata.k', 'string_above_max_length', { metadata: { k: 'v'.repeat(600) } }],
  ['a metadata key over 64 characters', 'metadata', 'string_above_max_length', { metadata: { ['k'.repeat(70)]: 'v' } }],
  ['a metadata value that is a number', 'metadata.k', 'invalid_type', { metadata: { k: 1 } }],
  ['an unknown include value', 'include[0]', 'invalid_value', { include: ['reasoning.everything'] }],
  ['an unknown reasoning effort', 'reasoning.effort', 'invalid_value', { reasoning: { effort: 'extreme' } }],
  ['an unknown reasoning summary', 'reasoning.summary', 'invalid_value', { reasoning: { summary: 'verbose' } }],
  ['an unknown text format type', 'text.format.type', 'invalid_value', { text: { format: { type: 'yaml' } } }],
  ['a json_schema format without a name', 'text.format.name', 'missing_required_parameter', { text: { format: { type: 'json_schema', schema: {} } } }],
  ['a json_schema format name with spaces', 'text.format.name', 'invalid_value', { text: { format: { type: 'json_schema', name: 'my schema', schema: {} } } }],
  ['previous_response_id with conversation', 'previous_response_id', null, { previous_response_id: 'resp_1', conversation: 'conv_1' }],
  ['an unknown truncation', 'truncation', 'invalid_value', { truncation: 'sometimes' }],
  ['model missing', 'model', 'missing_required_parameter', { model: undefined }],
  ['model empty', 'model', 'empty_string', { model: '' }],
  ['stream as a string', 'stream', 'invalid_type', { stream: 'yes' }],
  // media
  ['an image/bmp data URL', 'input[0].content[0].image_url', 'invalid_value', { input: [user([imagePart('data:image/bmp;base64,Qk0=')])] }],
  ['an SVG data URL', 'input[0].content[0].image_url', 'invalid_value', { input: [user([imagePart(`data:image/svg+xml;base64,${png}`)])] }],
  ['an image data URL that is not base64', 'input[0].content[0].image_url', 'invalid_value', { input: [user([imagePart('data:image/png;base64,not base64!')])] }],
  ['a data URL without base64', 'input[0].content[0].image_url', 'invalid_value', { input: [user([imagePart('data:image/png,rawbytes')])] }],
  ['an ftp image URL', 'input[0].content[0].image_url', 'invalid_value', { input: [user([imagePart('ftp://example.com/a.png')])] }],
  // media URLs: https: only (ir/media-url.ts); a gs:// URI would be read with the gateway's Google identity
  ['a gs:// image URL', 'input[0].content[0].image_url', 'invalid_value', { input: [user([imagePart('gs://operator-bucket/a.png')])] }],
  ['an http:// image URL', 'input[0].content[0].image_url', 'invalid_value', { input: [user([imagePart('http://169.254.169.254/a.png')])] }],
  [
    'a gs:// file_url',
    'input[0].content[0].file_url',
    'invalid_value',
    { input: [user([{ type: 'input_file', filename: 'p.pdf', file_url: 'gs://operator-private-bucket/finance/payroll-2026.pdf' }])] },
  ],
  ['a gs:// file_data', 'input[0].content[0].file_data', 'invalid_value', { input: [user([{ type: 'input_file', filename: 'p.pdf', file_data: 'gs://operator-bucket/p.pdf' }])] }],
  [
    'a gs:// image in a function_call_output',
    'input[2].output[0].image_url',
    'invalid_value',
    { input: [user('hi'), call('call_1'), { type: 'function_call_output', call_id: 'call_1', output: [imagePart('gs://operator-bucket/a.png')] }] },
  ],
  ['an input_image without a source', 'input[0].content[0].image_url', 'missing_required_parameter', { input: [user([{ type: 'input_image', detail: 'auto' }])] }],
  ['an unknown image detail', 'input[0].content[0].detail', 'invalid_value', { input: [user([{ type: 'input_image', image_url: 'https://example.com/a.png', detail: 'ultra' }])] }],
  [
    'input_file data that is not base64',
    'input[0].content[0].file_data',
    'invalid_value',
    { input: [user([{ type: 'input_file', filename: 'a.pdf', file_data: '%PDF-1.7 raw' }])] },
  ],
];

const LANES: UpstreamProtocol[] = ['responses', 'messages', 'chat', 'gemini'];
const FORWARDED_ON_PASSTHROUGH = new Set(['an item_reference (no stored items here)']);
const ROWS = LANES.flatMap((lane) =>
  CASES.filter(([what]) => lane !== 'responses' || !FORWARDED_ON_PASSTHROUGH.has(what)).map(
    ([what, param, code, over]) => [lane, what, param, code, over] as const,
  ),
);

describe('the Responses door refuses what the Responses API refuses, on every lane, before any upstream call', () => {
  it('covers the table on the four lanes', () => {
    expect(ROWS.length).toBe(CASES.length * LANES.length - FORWARDED_ON_PASSTHROUGH.size);
  });

  it.each(ROWS)('%s lane: %s → %s', async (lane, _what, param, code, over) => {
    const body = { model: MODELS[lane].alias, input: 'hi', ...over };
    const before = h.upstream.received.length;
    const res = await fetch(h.url + '/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(400);
    const parsed = JSON.parse(text) as { error: { type: string; message: string; param: string | null; code: string | null } };
    expect(parsed.error.type).toBe('invalid_request_error');
    expect(parsed.error.param, parsed.error.message).toBe(param);
    if (code !== null) expect(parsed.error.code, parsed.error.message).toBe(code);
    expect(parsed.error.message.length).toBeGreaterThan(10);
    expect(h.upstream.received).toHaveLength(before);
  });

  it('the same door still serves a valid request on each lane (the suite is not refusing everything)', async () => {
    const before = h.upstream.received.length;
    for (const lane of LANES) {
      const res = await h.openai.responses.create({ model: MODELS[lane].alias, input: 'hi' });
      expect(res.object).toBe('response');
    }
    expect(h.upstream.received).toHaveLength(before + LANES.length);
  });

  it('the upstream received nothing from any refused request', () => {
    expect(h.upstream.received).toHaveLength(LANES.length);
  });
});
