// The Chat Completions door through the OpenAI SDK's own chat helpers, on every upstream protocol:
// `chat.completions.stream()` with parallel tool calls, `parse()` with a zod response_format (and the
// structured-output request each upstream got), the stream's wire shape (role delta first, one index
// per call, the finish chunk, a separate choices-less usage chunk, [DONE]), a failure after the first
// byte (one error data frame, then the close), and both ways of presenting a key.
import { zodResponseFormat } from 'openai/helpers/zod';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../support/gateway-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ apiKey: 'sk-caller-1', config: () => ({ auth: { keys: [{ name: 'caller-1', key: 'sk-caller-1' }] } }) });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.upstream.received.length = 0;
});

const UPSTREAMS: UpstreamProtocol[] = ['chat', 'messages', 'responses', 'gemini'];
const WEATHER: OpenAI.Chat.ChatCompletionFunctionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

const last = () => h.upstream.received[h.upstream.received.length - 1]!;

/** The chunks of a raw streamed answer, as JSON (and the [DONE] marker as the string). */
async function rawChunks(body: Record<string, unknown>): Promise<{ status: number; frames: (Record<string, any> | string)[]; text: string }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(h.url + '/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-caller-1' },
    body: JSON.stringify({ stream: true, ...body }),
  });
  const text = await res.text();
  const frames = text
    .split('\n\n')
    .filter((f) => f.startsWith('data: '))
    .map((f) => f.slice(6))
    .map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as Record<string, unknown>)));
  return { status: res.status, frames, text };
}

describe.each(UPSTREAMS)('chat door → %s upstream', (upstream) => {
  const model = MODELS[upstream].alias;

  it('chat.completions.stream() with two parallel calls: each on its own index, ids kept apart, arguments not merged', async () => {
    h.upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'tool-call', id: 'call_A1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_B2', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    });
    const runner = h.openai.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Paris and Rome?' }], tools: [WEATHER], parallel_tool_calls: true });
    const done = await runner.finalChatCompletion();
    const choice = done.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = (choice.message.tool_calls ?? []) as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(done.model).toBe(model);
    // Gemini names the model in the path, the others in the body.
    if (upstream === 'gemini') expect(last().path).toContain(MODELS.gemini.upstream);
    else expect((last().body as Record<string, unknown>).model).toBe(MODELS[upstream].upstream);
  });

  it('parse() with a zod response_format: the upstream was asked for that schema, the SDK parses the answer', async () => {
    const Weather = z.object({ city: z.string(), celsius: z.number() });
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: '{"city":"Oslo","celsius":-3}' }] });
    const done = await h.openai.chat.completions.parse({ model, messages: [{ role: 'user', content: 'Oslo?' }], response_format: zodResponseFormat(Weather, 'weather') });
    expect(done.choices[0]!.message.parsed).toEqual({ city: 'Oslo', celsius: -3 });
    const seen = last().body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const schema =
      upstream === 'chat'
        ? seen.response_format.json_schema.schema
        : upstream === 'messages'
          ? seen.output_config.format.schema
          : upstream === 'responses'
            ? seen.text.format.schema
            : (seen.generationConfig.responseJsonSchema ?? seen.generationConfig.responseSchema);
    expect(schema.properties.city.type).toBe('string');
    expect(JSON.stringify(schema)).toContain('celsius');
  });

  it('the stream: role first, content deltas, the finish chunk, a separate choices-less usage chunk, then [DONE]', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello there, friend!' }], usage: { input: 12, output: 5 } });
    const { status, frames } = await rawChunks({ model, messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    expect(status).toBe(200);
    expect(frames[frames.length - 1]).toBe('[DONE]');
    const chunks = frames.slice(0, -1) as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(chunks[0]!.choices[0].delta.role).toBe('assistant');
    for (const c of chunks) {
      expect(c.object).toBe('chat.completion.chunk');
      expect(c.model).toBe(model);
    }
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('Hello there, friend!');
    const usageChunk = chunks[chunks.length - 1]!;
    const finishChunk = chunks[chunks.length - 2]!;
    expect(finishChunk.choices[0].finish_reason).toBe('stop');
    expect(finishChunk.usage ?? null).toBeNull();
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage.completion_tokens).toBeGreaterThan(0);
    expect(usageChunk.usage.prompt_tokens).toBeGreaterThan(0);
    expect(usageChunk.usage.total_tokens).toBe(usageChunk.usage.prompt_tokens + usageChunk.usage.completion_tokens);
    expect(chunks.filter((c) => c.usage).length).toBe(1);
  });

  it('without include_usage the stream has no usage chunk, and the upstream still reported usage to the gateway', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hi.' }] });
    const { frames } = await rawChunks({ model, messages: [{ role: 'user', content: 'hi' }] });
    const chunks = frames.filter((f) => f !== '[DONE]') as Record<string, unknown>[];
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(frames.filter((f) => f === '[DONE]')).toHaveLength(1);
    if (upstream === 'chat') expect((last().body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
  });

  it('a failure after the first byte: one {"error":…} data frame, then the stream closes; the SDK throws it', async () => {
    h.upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial' }], message: 'upstream exploded' });
    const { status, frames } = await rawChunks({ model, messages: [{ role: 'user', content: 'hi' }] });
    expect(status).toBe(200);
    const error = frames[frames.length - 1] as { error?: { message: string; type: string } };
    expect(error.error?.message).toMatch(/exploded/);
    expect(error.error?.type).toBe('server_error');
    h.upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial' }], message: 'upstream exploded' });
    const stream = await h.openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], stream: true });
    await expect(async () => {
      for await (const _ of stream) void _;
    }).rejects.toThrow(/exploded/);
  });

  it('an upstream 400 before the first byte is a real 400 in the OpenAI envelope', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 400, type: 'invalid_request_error', message: 'bad thing' });
    const err = await h.openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ type: 'invalid_request_error' });
  });
});

describe('keys at the chat door', () => {
  it('Authorization: Bearer and x-api-key both work; a wrong key is a 401 in the OpenAI envelope', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const bearer = await h.openai.chat.completions.create({ model: MODELS.chat.alias, messages: [{ role: 'user', content: 'hi' }] });
    expect(bearer.choices[0]!.message.content).toBe('ok');
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const { status } = await rawChunks({ model: MODELS.messages.alias, messages: [{ role: 'user', content: 'hi' }] });
    expect(status).toBe(200);
    const wrong = new OpenAI({ baseURL: h.url + '/v1', apiKey: 'sk-wrong', maxRetries: 0 });
    const err = await wrong.chat.completions.create({ model: MODELS.chat.alias, messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
  });

  it('an unknown model is a 404 model_not_found', async () => {
    const err = await h.openai.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(h.upstream.received).toHaveLength(0);
  });
});
