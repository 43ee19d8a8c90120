// Bad requests at the Chat Completions door, on all five lanes (pass-through to a Chat upstream,
// translated to Messages, Responses and Gemini, and the features only a Chat upstream can honour):
// each must be a 400 invalid_request_error with the field in `param` the way OpenAI spells it (and
// the OpenAI `code` where it gives one), never a 500, and the upstream must receive nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../src/http/json-body.js';
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
const asks = (calls: string[]): Body => ({ role: 'assistant', content: null, tool_calls: calls.map((id) => ({ id, type: 'function', function: { name: 'look', arguments: '{}' } })) });
const result = (id: string): Body => ({ role: 'tool', tool_call_id: id, content: 'ok' });
const fn = (name: string, extra: Body = {}): Body => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} }, ...extra } });
const image = (url: string): Body => ({ type: 'image_url', image_url: { url } });

/** [what, param, code or null when not asserted, fields over a valid body (undefined removes one)]. */
const CASES: [string, string, string | null, Body][] = [
  // conversation structure
  ['an empty messages list', 'messages', 'empty_array', { messages: [] }],
  ['no messages at all', 'messages', 'missing_required_parameter', { messages: undefined }],
  ['messages a string', 'messages', 'invalid_type', { messages: 'hi' }],
  ['an unknown role', 'messages[0].role', 'invalid_value', { messages: [{ role: 'robot', content: 'x' }] }],
  ['a message without a role', 'messages[0].role', null, { messages: [{ content: 'x' }] }],
  ['user content a number', 'messages[0].content', 'invalid_type', { messages: [user(7)] }],
  ['an unknown content part type', 'messages[0].content[0].type', 'invalid_value', { messages: [user([{ type: 'video_url', url: 'x' }])] }],
  ['text part text a number', 'messages[0].content[0].text', 'invalid_type', { messages: [user([{ type: 'text', text: 1 }])] }],
  ['a tool message with no call before it', 'messages[1].tool_call_id', null, { messages: [user('hi'), result('call_x')] }],
  ['a tool message answering another id', 'messages[2].tool_call_id', null, { messages: [user('hi'), asks(['call_1']), result('call_2')] }],
  ['a call left unanswered before the next user text', 'messages[1].tool_calls', null, { messages: [user('hi'), asks(['call_1']), user('and?')] }],
  ['one of two calls unanswered', 'messages[1].tool_calls', null, { messages: [user('hi'), asks(['call_1', 'call_2']), result('call_1'), user('and?')] }],
  ['a tool message without tool_call_id', 'messages[2].tool_call_id', 'missing_required_parameter', { messages: [user('hi'), asks(['call_1']), { role: 'tool', content: 'ok' }] }],
  [
    'tool call arguments as an object',
    'messages[1].tool_calls[0].function.arguments',
    'invalid_type',
    { messages: [user('hi'), { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'look', arguments: {} } }] }, result('c')] },
  ],
  // tools
  ['a function name with a space', 'tools[0].function.name', 'invalid_value', { tools: [fn('get weather')] }],
  ['a function name of 65 characters', 'tools[0].function.name', 'string_above_max_length', { tools: [fn('n'.repeat(65))] }],
  ['an empty function name', 'tools[0].function.name', 'empty_string', { tools: [fn('')] }],
  ['duplicate function names', 'tools[1]', null, { tools: [fn('look'), fn('look')] }],
  ['an unknown tool type', 'tools[0].type', 'invalid_value', { tools: [{ type: 'web_search', function: { name: 'x' } }] }],
  ['parameters of type string', 'tools[0].function.parameters', 'invalid_function_parameters', { tools: [fn('look', { parameters: { type: 'string' } })] }],
  ['tool_choice naming no offered tool', 'tool_choice', null, { tools: [fn('look')], tool_choice: { type: 'function', function: { name: 'other' } } }],
  ['an unknown tool_choice string', 'tool_choice', 'invalid_value', { tools: [fn('look')], tool_choice: 'sometimes' }],
  // parameters
  ['model missing', 'model', 'missing_required_parameter', { model: undefined }],
  ['model empty', 'model', 'empty_string', { model: '' }],
  ['stream as a string', 'stream', 'invalid_type', { stream: 'yes' }],
  ['temperature above 2', 'temperature', 'decimal_above_max_value', { temperature: 3 }],
  ['top_p below 0', 'top_p', 'decimal_below_min_value', { top_p: -0.5 }],
  ['max_tokens 0', 'max_tokens', 'integer_below_min_value', { max_tokens: 0 }],
  ['max_completion_tokens a decimal', 'max_completion_tokens', 'invalid_type', { max_completion_tokens: 10.5 }],
  ['five stop sequences', 'stop', null, { stop: ['a', 'b', 'c', 'd', 'e'] }],
  ['an unknown reasoning_effort', 'reasoning_effort', 'invalid_value', { reasoning_effort: 'extreme' }],
  ['an unknown response_format type', 'response_format.type', 'invalid_value', { response_format: { type: 'yaml' } }],
  ['a json_schema format without a name', 'response_format.json_schema.name', 'missing_required_parameter', { response_format: { type: 'json_schema', json_schema: { schema: {} } } }],
  ['metadata with 17 keys', 'metadata', 'object_above_max_properties', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => ['k' + i, 'v'])) }],
  // media
  ['an image/bmp data URL', 'messages[0].content[0].image_url.url', 'invalid_value', { messages: [user([image('data:image/bmp;base64,Qk0=')])] }],
  ['an image data URL that is not base64', 'messages[0].content[0].image_url.url', 'invalid_value', { messages: [user([image('data:image/png;base64,not base64!')])] }],
  ['an http:// image URL', 'messages[0].content[0].image_url.url', 'invalid_value', { messages: [user([image('http://169.254.169.254/a.png')])] }],
  ['a gs:// image URL', 'messages[0].content[0].image_url.url', 'invalid_value', { messages: [user([image('gs://operator-bucket/a.png')])] }],
  ['an unknown image detail', 'messages[0].content[0].image_url.detail', 'invalid_value', { messages: [user([{ type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'ultra' } }])] }],
  ['a file part without data or id', 'messages[0].content[0].file.file_data', 'missing_required_parameter', { messages: [user([{ type: 'file', file: { filename: 'a.pdf' } }])] }],
];

/** Refused only where the upstream cannot honour them: a Chat Completions upstream gets them as sent. */
const CHAT_ONLY: [string, string, Body][] = [
  ['n of 2', 'n', { n: 2 }],
  ['logprobs', 'logprobs', { logprobs: true }],
  ['audio output', 'modalities', { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }],
  ['a predicted output', 'prediction', { prediction: { type: 'content', content: 'x' } }],
  ['audio input', 'messages[0].content[0]', { messages: [user([{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }])] }],
];

const LANES: UpstreamProtocol[] = ['chat', 'messages', 'responses', 'gemini'];
const ROWS = LANES.flatMap((lane) => CASES.map(([what, param, code, over]) => [lane, what, param, code, over] as const));
const TRANSLATED: UpstreamProtocol[] = ['messages', 'responses', 'gemini'];
const ONLY_ROWS = TRANSLATED.flatMap((lane) => CHAT_ONLY.map(([what, param, over]) => [lane, what, param, over] as const));

async function post(body: string | Body): Promise<{ status: number; text: string }> {
  const res = await fetch(h.url + '/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer caller-key' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

function errorOf(text: string): { type: string; message: string; param: string | null; code: string | null } {
  return (JSON.parse(text) as { error: { type: string; message: string; param: string | null; code: string | null } }).error;
}

describe('the Chat Completions door refuses what the OpenAI API refuses, on every lane, before any upstream call', () => {
  it.each(ROWS)('%s lane: %s → %s', async (lane, _what, param, code, over) => {
    const before = h.upstream.received.length;
    const { status, text } = await post({ model: MODELS[lane].alias, messages: [user('hi')], ...over });
    expect(status, text).toBe(400);
    const e = errorOf(text);
    expect(e.type).toBe('invalid_request_error');
    expect(e.param, e.message).toBe(param);
    if (code !== null) expect(e.code, e.message).toBe(code);
    expect(e.message.length).toBeGreaterThan(10);
    expect(h.upstream.received).toHaveLength(before);
  });

  it.each(ONLY_ROWS)('%s lane: %s is refused naming %s, never silently dropped', async (lane, _what, param, over) => {
    const before = h.upstream.received.length;
    const { status, text } = await post({ model: MODELS[lane].alias, messages: [user('hi')], ...over });
    expect(status, text).toBe(400);
    const e = errorOf(text);
    expect(e.type).toBe('invalid_request_error');
    expect(e.param).toBe(param);
    expect(e.message).toContain('Chat Completions upstream');
    expect(h.upstream.received).toHaveLength(before);
  });

  it.each(CHAT_ONLY)('chat lane: %s goes up as sent', async (_what, _param, over) => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const { status, text } = await post({ model: MODELS.chat.alias, messages: [user('hi')], ...over });
    expect(status, text).toBe(200);
    const seen = h.upstream.received[h.upstream.received.length - 1]!.body as Body;
    for (const key of Object.keys(over)) expect(seen[key]).toEqual(over[key]);
  });

  it('a body that is not JSON, a JSON array, and one nested 10,000 deep: 400 in the OpenAI envelope', async () => {
    const before = h.upstream.received.length;
    for (const body of ['{"model":', '[1,2]', `{"model":"${MODELS.messages.alias}","messages":[{"role":"user","content":"hi"}],"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`]) {
      const { status, text } = await post(body);
      expect(status, text).toBe(400);
      expect(errorOf(text).type).toBe('invalid_request_error');
    }
    const deep = await post(`{"model":"${MODELS.gemini.alias}","messages":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    expect(deep.text).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(h.upstream.received).toHaveLength(before);
  });

  it('a huge unknown field on a translated lane is dropped with a warning, not forwarded', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const res = await fetch(h.url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS.messages.alias, messages: [user('hi')], metadata: { a: 'b' }, seed: 7, chat_template_kwargs: { x: 'y'.repeat(100_000) } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-warnings')).toContain('seed');
    const seen = h.upstream.received[h.upstream.received.length - 1]!.body as Body;
    expect(seen.seed).toBeUndefined();
    expect(seen.chat_template_kwargs).toBeUndefined();
  });

  it('the same door still serves a valid request on each lane (the suite is not refusing everything)', async () => {
    for (const lane of LANES) {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
      const res = await h.openai.chat.completions.create({ model: MODELS[lane].alias, messages: [{ role: 'user', content: 'hi' }] });
      expect(res.object).toBe('chat.completion');
    }
  });
});
