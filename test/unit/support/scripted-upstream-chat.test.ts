// The scripted upstream's Chat Completions side, checked with the real openai SDK accumulators.
import OpenAI, { APIError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { postSse } from './raw-http.js';

let upstream: ScriptedUpstream;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  client = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.received.length = 0;
});

const base: ChatCompletionCreateParamsNonStreaming = { model: 'chat-test', messages: [{ role: 'user', content: 'Hi' }] };
const tools: ChatCompletionCreateParamsNonStreaming['tools'] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
];

/** create({stream:true}) accumulated by hand, including the non-standard reasoning_content. */
async function viaRawStream(params: ChatCompletionCreateParamsNonStreaming): Promise<ChatCompletion & { reasoning?: string }> {
  const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
  let content: string | null = null;
  let reasoning: string | undefined;
  let finish: ChatCompletion.Choice['finish_reason'] | null = null;
  let usage: ChatCompletion['usage'];
  const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  let id = '';
  for await (const chunk of stream) {
    id = chunk.id;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta as typeof choice.delta & { reasoning_content?: string };
    if (delta.content) content = (content ?? '') + delta.content;
    if (delta.reasoning_content) reasoning = (reasoning ?? '') + delta.reasoning_content;
    for (const tc of delta.tool_calls ?? []) {
      const call = (calls[tc.index] ??= { id: tc.id!, type: 'function', function: { name: tc.function!.name!, arguments: '' } });
      call.function.arguments += tc.function?.arguments ?? '';
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  const message = { role: 'assistant' as const, content, refusal: null, ...(calls.length ? { tool_calls: calls } : {}) };
  return { id, object: 'chat.completion', created: 0, model: '', choices: [{ index: 0, message, finish_reason: finish!, logprobs: null }], usage, reasoning };
}

const modes = [
  ['create', (p: ChatCompletionCreateParamsNonStreaming) => client.chat.completions.create(p)],
  ['create({stream:true})', viaRawStream],
  ['stream().finalChatCompletion()', (p: ChatCompletionCreateParamsNonStreaming) => client.chat.completions.stream({ ...p, stream: true }).finalChatCompletion()],
] as const;

describe.each(modes)('Chat via SDK %s', (name, send) => {
  it('text reply', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello there, friend!' }] });
    const done = await send(base);
    expect(done.id).toMatch(/^chatcmpl-/);
    expect(done.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: 'Hello there, friend!' } });
    if (name !== 'stream().finalChatCompletion()') expect(done.usage!.prompt_tokens).toBeGreaterThan(0);
  });

  it('reasoning then a tool call', async () => {
    upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'Need the weather tool.', opaque: 'not-for-chat' },
        { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ],
    });
    const done = await send({ ...base, tools });
    const choice = done.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toMatchObject([{ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    expect(choice.message.tool_calls![0]!.id).toMatch(/^call_/);
    if (name === 'create') expect(choice.message).toMatchObject({ reasoning_content: 'Need the weather tool.' });
    if (name === 'create({stream:true})') expect((done as { reasoning?: string }).reasoning).toBe('Need the weather tool.');
  });

  it('two parallel tool calls with given ids', async () => {
    upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'tool-call', id: 'call_A1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_B2', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    });
    const done = await send({ ...base, tools });
    expect(done.choices[0]!.message.tool_calls).toMatchObject([
      { id: 'call_A1', function: { arguments: '{"city":"Paris"}' } },
      { id: 'call_B2', function: { arguments: '{"city":"Rome"}' } },
    ]);
  });

  it('max_tokens and refusal finish reasons', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'The first part of' }], stop: 'max_tokens' });
    expect((await send({ ...base, max_tokens: 16 })).choices[0]!.finish_reason).toBe('length');
    upstream.enqueue({ kind: 'reply', blocks: [], stop: 'refusal' });
    expect((await send(base)).choices[0]!.finish_reason).toBe('content_filter');
  });

  it('HTTP errors map to SDK error classes', async () => {
    upstream.enqueue({ kind: 'http-error', status: 429, message: 'slow down', retryAfter: '3' });
    const limited = await send(base).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as APIError).headers?.get('retry-after')).toBe('3');
    expect((limited as APIError).error).toMatchObject({ message: 'slow down', code: 'rate_limit_exceeded', param: null });
    upstream.enqueue({ kind: 'http-error', status: 502 }, { kind: 'http-error', status: 400, message: 'bad' });
    await expect(send(base)).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(send(base)).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('a failure mid-stream makes the SDK throw', async () => {
    upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }], message: 'upstream exploded' });
    const err = await send(base).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as Error).message).toMatch(/exploded/);
  });
});

describe('Chat wire details', () => {
  it('data-only chunks, usage chunk only with include_usage, then [DONE]', async () => {
    upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'Thinking it over.' },
        { type: 'text', text: 'Hello there!' },
        { type: 'tool-call', id: 'call_A1', name: 'get_weather', arguments: '{"city": "Paris"}' },
        { type: 'tool-call', id: 'call_B2', name: 'get_weather', arguments: '{"city": "Rome"}' },
      ],
      usage: { input: 90, output: 40, reasoning: 5, cacheRead: 10 },
    });
    const events = await postSse(`${upstream.url}/v1/chat/completions`, { ...base, stream: true, stream_options: { include_usage: true } });
    expect(events.every((e) => e.event === null)).toBe(true);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks[0].choices[0].delta).toMatchObject({ role: 'assistant', content: '' });
    const usageChunk = chunks.at(-1);
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 40, total_tokens: 140, prompt_tokens_details: { cached_tokens: 10 }, completion_tokens_details: { reasoning_tokens: 5 } });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-2).choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas.filter((t: { id?: string }) => t.id).map((t: { index: number; id: string }) => [t.index, t.id])).toEqual([
      [0, 'call_A1'],
      [1, 'call_B2'],
    ]);
    expect(toolDeltas.filter((t: { index: number }) => t.index === 1).length).toBeGreaterThan(2); // name first, then fragments
    expect(chunks.some((c) => c.choices[0]?.delta.reasoning_content)).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  it('no usage chunk without include_usage; mid-stream error is a top-level error chunk without [DONE]', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const plain = await postSse(`${upstream.url}/chat/completions`, { ...base, stream: true });
    expect(plain.map((e) => e.data).filter((d) => d !== '[DONE]').every((d) => !('usage' in JSON.parse(d)))).toBe(true);
    expect(upstream.received[0]).toMatchObject({ protocol: 'chat', path: '/chat/completions', stream: true });

    upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial' }], message: 'boom' });
    const failed = await postSse(`${upstream.url}/v1/chat/completions`, { ...base, stream: true });
    expect(JSON.parse(failed.at(-1)!.data)).toEqual({ error: { message: 'boom', type: 'server_error', param: null, code: 'server_error' } });
    expect(failed.some((e) => e.data === '[DONE]')).toBe(false);
  });
});
