// The scripted upstream's OpenAI Responses side, checked with the real openai SDK accumulators.
import OpenAI, { APIError } from 'openai';
import type { ResponseCreateParamsNonStreaming, ResponseFunctionToolCall, ResponseReasoningItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { postJson, postSse } from './raw-http.js';

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

const base: ResponseCreateParamsNonStreaming = { model: 'gpt-test', input: 'Hi', instructions: 'Be terse.' };
const tools: ResponseCreateParamsNonStreaming['tools'] = [
  { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false },
];

/** Collects a create({stream:true}) into its terminal response, as a strict client (Codex) would. */
async function viaRawStream(params: ResponseCreateParamsNonStreaming) {
  const stream = await client.responses.create({ ...params, stream: true });
  let terminal: OpenAI.Responses.Response | undefined;
  let expected = 0;
  for await (const event of stream) {
    expect(event.sequence_number).toBe(expected++);
    if (event.type === 'response.completed' || event.type === 'response.incomplete') terminal = event.response;
  }
  if (!terminal) throw new Error('no terminal event');
  return terminal;
}

const modes = [
  ['create', (p: ResponseCreateParamsNonStreaming) => client.responses.create(p)],
  ['stream().finalResponse()', ({ stream: _stream, ...p }: ResponseCreateParamsNonStreaming) => client.responses.stream(p).finalResponse()],
  ['create({stream:true})', viaRawStream],
] as const;

describe.each(modes)('Responses via SDK %s', (_name, send) => {
  it('text reply with usage and echoed configuration', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello there, friend!' }] });
    const res = await send(base);
    expect(res.id).toMatch(/^resp_/);
    expect(res.status).toBe('completed');
    expect(res.instructions).toBe('Be terse.');
    expect(res.output).toMatchObject([{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello there, friend!' }] }]);
    expect(res.output[0]!.id).toMatch(/^msg_/);
    const usage = res.usage!;
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
  });

  it('reasoning (with encrypted content when included) then a function call', async () => {
    upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'Need the weather tool.', opaque: 'opaque-1' },
        { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ],
    });
    const res = await send({ ...base, tools, include: ['reasoning.encrypted_content'], store: false });
    const [reasoning, call] = res.output as [ResponseReasoningItem, ResponseFunctionToolCall];
    expect(reasoning).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Need the weather tool.' }], encrypted_content: 'opaque-1' });
    expect(reasoning.id).toMatch(/^rs_/);
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
    expect(call.id).toMatch(/^fc_/);
    expect(call.call_id).toMatch(/^call_/);
    expect(res.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it('no encrypted content unless the request includes it', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'reasoning', text: 'hmm', opaque: 'secret' }, { type: 'text', text: 'ok' }] });
    const res = await send(base);
    expect((res.output[0] as ResponseReasoningItem).encrypted_content).toBeNull();
  });

  it('two parallel calls with given call ids, and a custom tool call', async () => {
    upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'tool-call', id: 'call_A1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_B2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'tool-call', id: 'call_P', name: 'apply_patch', arguments: '*** Begin Patch\n*** End Patch', custom: true },
      ],
    });
    const res = await send({ ...base, tools });
    expect(res.output).toMatchObject([
      { type: 'function_call', call_id: 'call_A1', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_B2', arguments: '{"city":"Rome"}' },
      { type: 'custom_tool_call', call_id: 'call_P', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
    ]);
    expect(new Set(res.output.map((o) => o.id)).size).toBe(3);
  });

  it('max_tokens gives an incomplete response', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'The first part of' }], stop: 'max_tokens' });
    const res = await send({ ...base, max_output_tokens: 16 });
    expect(res).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 16 });
    expect(res.output).toMatchObject([{ status: 'incomplete', content: [{ text: 'The first part of' }] }]);
  });

  it('cached and reasoning tokens follow OpenAI accounting', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }], usage: { input: 10, cacheRead: 90, output: 30, reasoning: 20 } });
    const res = await send(base);
    expect(res.usage).toMatchObject({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 90 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 20 },
      total_tokens: 130,
    });
  });

  it('HTTP errors map to SDK error classes', async () => {
    upstream.enqueue({ kind: 'http-error', status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down', retryAfter: '7' });
    const limited = await send(base).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as APIError).headers?.get('retry-after')).toBe('7');
    expect((limited as APIError).error).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error', message: 'slow down' });

    upstream.enqueue({ kind: 'http-error', status: 500 }, { kind: 'http-error', status: 404 }, { kind: 'http-error', status: 401 });
    const failed = await send(base).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
    expect((failed as APIError).error).toMatchObject({ type: 'server_error' });
    await expect(send(base)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(send(base)).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('a failure mid-stream makes the SDK throw', async () => {
    upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }], message: 'upstream exploded' });
    const err = await send(base).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as Error).message).toMatch(/exploded/);
  });
});

describe('Responses wire details', () => {
  it('streams named events with sequence numbers from 0 and no [DONE]', async () => {
    upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'Checking the weather for Paris.', opaque: 'enc' },
        { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'text', text: 'Checking Paris now.' },
      ],
    });
    const events = await postSse(`${upstream.url}/v1/responses`, { ...base, stream: true, include: ['reasoning.encrypted_content'] });
    const data = events.map((e) => JSON.parse(e.data));
    events.forEach((e, i) => {
      expect(data[i].type).toBe(e.event);
      expect(data[i].sequence_number).toBe(i);
    });
    const names = events.map((e) => e.event);
    expect(names).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      ...names.filter((n) => n === 'response.reasoning_summary_text.delta'),
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      ...names.filter((n) => n === 'response.function_call_arguments.delta'),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      ...names.filter((n) => n === 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(names.filter((n) => n === 'response.output_text.delta').length).toBeGreaterThan(1);
    expect(data[0].response).toMatchObject({ status: 'in_progress', output: [], usage: null });
    const terminal = data.at(-1).response;
    const done = data.filter((d) => d.type === 'response.output_item.done').map((d) => d.item);
    expect(terminal.output).toEqual(done); // same ids and call ids as streamed
    expect(events.some((e) => e.data === '[DONE]')).toBe(false);
  });

  it('a mid-stream failure is an error frame (flat + nested) followed by response.failed', async () => {
    upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial' }], message: 'boom' });
    const events = await postSse(`${upstream.url}/v1/responses`, { ...base, stream: true });
    const [error, failed] = events.slice(-2).map((e) => ({ event: e.event, data: JSON.parse(e.data) }));
    expect(error).toMatchObject({ event: 'error', data: { type: 'error', code: 'server_error', message: 'boom', param: null, error: { type: 'server_error', message: 'boom' } } });
    expect(failed).toMatchObject({ event: 'response.failed', data: { response: { status: 'failed', error: { code: 'server_error', message: 'boom' } } } });
  });

  it('serves /responses without the /v1 prefix and input_tokens', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const res = await postJson(`${upstream.url}/responses?api-version=1`, base);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.json()).toMatchObject({ status: 'completed' });
    const count = await postJson(`${upstream.url}/v1/responses/input_tokens`, base);
    expect(await count.json()).toMatchObject({ object: 'response.input_tokens', input_tokens: expect.any(Number) });
    expect(upstream.received.map((r) => [r.protocol, r.path])).toEqual([
      ['responses', '/responses'],
      ['responses', '/v1/responses/input_tokens'],
    ]);
  });

  it('lists models in the OpenAI shape', async () => {
    const models = await client.models.list();
    expect(models.data).toMatchObject([{ id: 'scripted-model', object: 'model' }]);
    await expect(client.models.retrieve('nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});
