// The scripted upstream's Anthropic Messages side, checked with the real @anthropic-ai/sdk accumulators.
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { parseSse, postJson, postSse } from './raw-http.js';

let upstream: ScriptedUpstream;
let client: Anthropic;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  client = new Anthropic({ baseURL: upstream.url, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.received.length = 0;
});

const base = { model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Hi' }] };
const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];

/** Runs the same request non-streamed (create) and streamed (stream().finalMessage()). */
const modes = [
  ['create', (params: Anthropic.MessageCreateParamsNonStreaming) => client.messages.create(params)],
  ['stream().finalMessage()', (params: Anthropic.MessageCreateParamsNonStreaming) => client.messages.stream(params).finalMessage()],
] as const;

describe.each(modes)('Messages via SDK %s', (_name, send) => {
  it('text reply with usage', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello there, friend!' }] });
    const msg = await send(base);
    expect(msg.id).toMatch(/^msg_/);
    expect(msg.content).toMatchObject([{ type: 'text', text: 'Hello there, friend!' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBeGreaterThan(1);
  });

  it('thinking then tool call', async () => {
    upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'Need the weather tool.', opaque: 'sig-123' },
        { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      ],
    });
    const msg = await send({ ...base, tools });
    expect(msg.content).toMatchObject([
      { type: 'thinking', thinking: 'Need the weather tool.', signature: 'sig-123' },
      { type: 'tool_use', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
    ]);
    expect((msg.content[1] as Anthropic.ToolUseBlock).id).toMatch(/^toolu_/);
    expect(msg.stop_reason).toBe('tool_use');
  });

  it('redacted thinking and two parallel tool calls with given ids', async () => {
    upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: '', opaque: 'redacted-blob' },
        { type: 'tool-call', id: 'toolu_A', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'toolu_B', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    });
    const msg = await send({ ...base, tools });
    expect(msg.content).toMatchObject([
      { type: 'redacted_thinking', data: 'redacted-blob' },
      { type: 'tool_use', id: 'toolu_A', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'toolu_B', input: { city: 'Rome' } },
    ]);
  });

  it('max_tokens, stop_sequence and refusal stops', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'The first part of' }], stop: 'max_tokens', usage: { output: 16 } });
    const cut = await send(base);
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.usage.output_tokens).toBe(16);

    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'One, two' }], stop: 'stop_sequence' });
    const stopped = await send({ ...base, stop_sequences: ['three'] });
    expect(stopped).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'three' });

    upstream.enqueue({ kind: 'reply', blocks: [], stop: 'refusal' });
    const refused = await send(base);
    expect(refused).toMatchObject({ stop_reason: 'refusal', content: [] });
  });

  it('scripted cache usage', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }], usage: { input: 10, cacheRead: 2048, cacheWrite: 5, output: 3 } });
    const msg = await send(base);
    expect(msg.usage).toMatchObject({ input_tokens: 10, cache_read_input_tokens: 2048, cache_creation_input_tokens: 5, output_tokens: 3 });
  });

  it('HTTP errors map to SDK error classes', async () => {
    upstream.enqueue({ kind: 'http-error', status: 429, message: 'slow down', retryAfter: '7' });
    const limited = await send(base).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect((limited as APIError).headers?.get('retry-after')).toBe('7');
    expect((limited as APIError).error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } });

    upstream.enqueue({ kind: 'http-error', status: 400, message: 'bad' }, { kind: 'http-error', status: 500 }, { kind: 'http-error', status: 529 });
    await expect(send(base)).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(send(base)).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    const overloaded = await send(base).catch((e: unknown) => e);
    expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError);
    expect((overloaded as APIError).status).toBe(529);
    expect((overloaded as APIError).error).toMatchObject({ error: { type: 'overloaded_error' } });
  });

  it('a failure mid-stream makes the SDK throw', async () => {
    upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }], message: 'upstream exploded' });
    const err = await send(base).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(String((err as Error).message)).toMatch(/exploded/);
  });
});

describe('Messages wire details', () => {
  it('streams the exact event sequence with a ping after the first block start', async () => {
    upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'Thinking about the weather here.', opaque: 'sig-xyz' },
        { type: 'text', text: 'Let me check the weather.' },
        { type: 'tool-call', name: 'get_weather', arguments: '{"city": "Paris", "unit": "celsius"}' },
      ],
    });
    const events = await postSse(`${upstream.url}/v1/messages`, { ...base, stream: true }, { 'anthropic-version': '2023-06-01' });
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event); // every frame named, name = type
    const names = events.map((e) => e.event);
    expect(names.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(names.filter((n) => n === 'ping')).toHaveLength(1);

    const data = events.map((e) => JSON.parse(e.data));
    expect(data[0].message).toMatchObject({ content: [], stop_reason: null, usage: { output_tokens: 1 } });
    expect(data[0].message.usage.input_tokens).toBeGreaterThan(0);
    const deltas = (i: number) => data.filter((d) => d.type === 'content_block_delta' && d.index === i).map((d) => d.delta);
    const thinking = deltas(0);
    expect(thinking.filter((d) => d.type === 'thinking_delta').length).toBeGreaterThan(1);
    expect(thinking[thinking.length - 1]).toEqual({ type: 'signature_delta', signature: 'sig-xyz' });
    expect(deltas(1).length).toBeGreaterThan(1);
    const json = deltas(2);
    expect(json[0]).toEqual({ type: 'input_json_delta', partial_json: '' });
    expect(json.length).toBeGreaterThanOrEqual(3);
    expect(json.map((d) => d.partial_json).join('')).toBe('{"city": "Paris", "unit": "celsius"}');
    // 2023-06-01 clients get no 2026-only fields.
    expect(data.find((d) => d.type === 'content_block_start' && d.index === 1).content_block).toEqual({ type: 'text', text: '' });
    expect(data.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: expect.any(Number) } });
  });

  it('a mid-stream failure is an `event: error` frame and no message_stop', async () => {
    upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial' }], message: 'boom' });
    const events = await postSse(`${upstream.url}/v1/messages`, { ...base, stream: true });
    expect(events.at(-1)).toMatchObject({ event: 'error' });
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ type: 'error', error: { type: 'api_error', message: 'boom' } });
    expect(events.some((e) => e.event === 'message_stop')).toBe(false);
  });

  it('answers 2026-10-21 clients with the newer nullable fields', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'x' }, { type: 'tool-call', name: 't', arguments: '{}' }] });
    const res = await postJson(`${upstream.url}/v1/messages`, base, { 'anthropic-version': '2026-10-21' });
    const body = await res.json();
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(body).toMatchObject({ stop_details: null, container: null, content: [{ citations: null }, { caller: { type: 'direct' } }] });
  });

  it('counts tokens and lists models', async () => {
    const counted = await client.messages.countTokens({ model: 'claude-test', messages: [{ role: 'user', content: 'Hello' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['scripted-model']);
    expect(upstream.received.map((r) => [r.protocol, r.path])).toEqual([
      ['messages', '/v1/messages/count_tokens'],
      ['messages', '/v1/models'],
    ]);
  });

  it('records what it received, including the query string', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    // Claude Code's shape: ?beta=true and an anthropic-beta list.
    await postJson(`${upstream.url}/v1/messages?beta=true`, base, { 'anthropic-beta': 'interleaved-thinking-2025-05-14' });
    const [rec] = upstream.received;
    expect(rec).toMatchObject({ protocol: 'messages', method: 'POST', path: '/v1/messages', url: '/v1/messages?beta=true', stream: false });
    expect(rec!.body.messages).toEqual(base.messages);
    expect(rec!.headers['anthropic-beta']).toContain('interleaved-thinking-2025-05-14');
    const streamed = await postSse(`${upstream.url}/v1/messages`, { ...base, stream: true });
    expect(streamed.length).toBeGreaterThan(0);
    expect(upstream.received[1]!.stream).toBe(true);
  });
});

it('parseSse helper keeps frames without event lines as null', () => {
  expect(parseSse('data: {"a":1}\n\n')).toEqual([{ event: null, data: '{"a":1}' }]);
});
