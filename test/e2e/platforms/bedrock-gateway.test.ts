// The gateway in front of the scripted Bedrock (proved against @anthropic-ai/bedrock-sdk in
// bedrock-fake-sdk.test.ts), with the official Anthropic and OpenAI SDKs as callers: both doors,
// streamed and not, tools and thinking, what Bedrock received (envelope, signature, body bytes), a
// throttling exception mid-stream, Bedrock's HTTP errors, count_tokens, and the API-key mode.
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setAwsEnv, startBedrockHarness, type BedrockHarness } from '../../support/bedrock/gateway.js';
import type { BedrockReceived } from '../../support/bedrock/server.js';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const ARN = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6';
const KEY_ID = 'AKIAGATEWAYBEDROCK01';
const SECRET = 'gateway-secret-for-the-scripted-bedrock';
const WEATHER: Anthropic.Tool = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function last(h: BedrockHarness): BedrockReceived {
  const r = h.upstream.received.at(-1);
  if (!r) throw new Error('Bedrock received nothing');
  return r;
}

/** What every generation request must look like on Bedrock's side. */
function expectBedrockEnvelope(r: BedrockReceived, stream: boolean): void {
  expect(r.modelId).toBe(MODEL);
  expect(r.operation).toBe(stream ? 'invoke-with-response-stream' : 'invoke');
  expect(r.auth).toBe('sigv4');
  expect(r.accessKeyId).toBe(KEY_ID);
  expect(r.body.model).toBeUndefined();
  expect(r.body.stream).toBeUndefined();
  expect(r.body.anthropic_version).toBe('bedrock-2023-05-31');
  expect(r.headers['x-api-key']).toBeUndefined();
  expect(r.headers['anthropic-version']).toBeUndefined();
  expect(r.headers['anthropic-beta']).toBeUndefined();
}

describe('gateway → Amazon Bedrock (SigV4 from the environment)', () => {
  let h: BedrockHarness;
  let restoreEnv: () => void;

  beforeAll(async () => {
    restoreEnv = setAwsEnv({ AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET });
    h = await startBedrockHarness({
      model: MODEL,
      bedrock: { credentials: { [KEY_ID]: { secretAccessKey: SECRET } } },
      config: () => ({
        models: {
          'claude-count': { provider: 'up-messages', model: 'anthropic.claude-haiku-4-5-20251001-v1:0' },
          'claude-arn': { provider: 'up-messages', model: ARN },
          // Anthropic's API first, Bedrock when it fails before the first byte.
          'claude-sonnet': { targets: [{ provider: 'anthropic-direct', model: 'claude-sonnet-direct' }, { provider: 'up-messages', model: MODEL }] },
        },
      }),
    });
  });
  afterAll(async () => {
    await h?.close();
    restoreEnv?.();
  });
  beforeEach(() => {
    h.upstream.received.length = 0;
  });

  for (const stream of [false, true]) {
    const mode = stream ? 'streamed' : 'not streamed';

    it(`Messages door (pass-through), ${mode}: thinking, tools, cache_control, betas and unknown fields reach Bedrock; signatures come back byte-exact`, async () => {
      const signature = 'EqQBCkYIBxgCKkDbedrock+signature/with=chars' + (stream ? 'S' : 'J');
      h.upstream.enqueue({
        kind: 'reply',
        blocks: [
          { type: 'reasoning', text: 'The user wants the weather.', opaque: signature },
          { type: 'tool-call', id: 'toolu_01BedrockCall', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      });
      const params = {
        model: 'via-messages',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        tools: [WEATHER],
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        // Not in the SDK's types: a field the gateway does not know must still reach the model.
        x_future_field: { keep: [1, 'two', null] },
      } as unknown as Anthropic.MessageCreateParamsNonStreaming;
      const headers = { 'anthropic-beta': 'interleaved-thinking-2025-05-14, context-1m-2025-08-07' };
      let first: Anthropic.Message;
      if (stream) {
        const s = h.anthropic.messages.stream(params as unknown as Anthropic.MessageStreamParams, { headers });
        first = await s.finalMessage();
      } else {
        first = await h.anthropic.messages.create(params, { headers });
      }
      expect(first.model).toBe('via-messages');
      expect(first.stop_reason).toBe('tool_use');
      expect(first.content[0]).toMatchObject({ type: 'thinking', thinking: 'The user wants the weather.', signature });
      expect(first.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_01BedrockCall', name: 'get_weather', input: { city: 'Oslo' } });

      const r1 = last(h);
      expectBedrockEnvelope(r1, stream);
      expect(r1.body.anthropic_beta).toEqual(['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07']);
      expect(r1.body.system).toEqual([{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }]);
      expect(r1.body.x_future_field).toEqual({ keep: [1, 'two', null] });
      expect(r1.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });

      // The next turn: the thinking block goes back to Bedrock exactly as it came.
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Cold, -3C.' }] });
      const next = {
        ...(params as unknown as Any),
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01BedrockCall', content: '-3C' }] },
        ],
      };
      const second = stream
        ? await h.anthropic.messages.stream(next as Anthropic.MessageStreamParams, { headers }).finalMessage()
        : await h.anthropic.messages.create(next as Anthropic.MessageCreateParamsNonStreaming, { headers });
      expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: 'Cold, -3C.' })]);
      const r2 = last(h);
      expectBedrockEnvelope(r2, stream);
      expect(r2.body.messages[1].content[0]).toMatchObject({ type: 'thinking', signature });
      expect(r2.rawBody).toContain(JSON.stringify(signature));
    });

    it(`Responses door (translation), ${mode}: tools and reasoning through Bedrock`, async () => {
      h.upstream.enqueue({
        kind: 'reply',
        blocks: [
          { type: 'reasoning', text: 'Need the weather tool.', opaque: 'sig-translated' },
          { type: 'tool-call', id: 'toolu_01Translated', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      });
      const request = {
        model: 'via-messages',
        input: 'Weather in Rome?',
        reasoning: { effort: 'medium' as const },
        tools: [{ type: 'function' as const, name: 'get_weather', description: 'Weather', parameters: WEATHER.input_schema as Any, strict: false }],
        store: false,
      };
      let output: Any[];
      if (stream) {
        const events: string[] = [];
        let done: Any | undefined;
        for await (const ev of await h.openai.responses.create({ ...request, stream: true })) {
          events.push(ev.type);
          if (ev.type === 'response.completed') done = ev.response;
        }
        expect(events[0]).toBe('response.created');
        expect(events.at(-1)).toBe('response.completed');
        output = done!.output;
      } else {
        output = (await h.openai.responses.create(request)).output as Any[];
      }
      const call = output.find((o) => o.type === 'function_call');
      expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Rome"}' });
      const r = last(h);
      expectBedrockEnvelope(r, r.stream);
      expect(r.body.tools[0].name).toBe('get_weather');
      expect(r.body.messages[0].content).toEqual(expect.arrayContaining([expect.objectContaining({ text: 'Weather in Rome?' })]));
    });
  }

  it('a throttling exception mid-stream: the Messages error event, then a clean close', async () => {
    h.upstream.enqueue({ kind: 'stream-exception', blocks: [{ type: 'text', text: 'Partial ans' }], exception: 'throttlingException', message: 'Too many tokens, please wait before trying again.' });
    const res = await fetch(h.url + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'caller-key', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'via-messages', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(res.status).toBe(200);
    const text = await res.text(); // resolves only when the gateway closed the stream
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe('message_start');
    expect(events).toContain('content_block_delta');
    expect(events.at(-1)).toBe('error');
    const deltas = [...text.matchAll(/"text_delta","text":"([^"]*)"/g)].map((m) => m[1]).join('');
    expect(deltas).toBe('Partial ans');
    const data = JSON.parse(text.trim().split('\n').at(-1)!.slice('data: '.length));
    expect(data).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringMatching(/Too many tokens/) } });

    // The SDK sees the same failure as Anthropic's own rate-limit event.
    h.upstream.enqueue({ kind: 'stream-exception', blocks: [{ type: 'text', text: 'Partial' }], exception: 'throttlingException', message: 'Too many tokens' });
    const err = await h.anthropic.messages.stream({ model: 'via-messages', max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage().catch((e: unknown) => e);
    expect(String(err)).toMatch(/rate_limit_error|Too many tokens/);
  });

  it('a throttling exception mid-stream at the Responses door: response.failed, then a clean close', async () => {
    h.upstream.enqueue({ kind: 'stream-exception', blocks: [{ type: 'text', text: 'Partial' }], exception: 'serviceUnavailableException', message: 'Bedrock is unavailable' });
    const res = await fetch(h.url + '/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer caller-key' },
      body: JSON.stringify({ model: 'via-messages', input: 'Hi', stream: true, store: false }),
    });
    expect(res.status).toBe(200);
    const text = await res.text(); // resolves only when the gateway closed the stream
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe('response.created');
    expect(events).toContain('response.output_text.delta');
    expect(events.slice(-2)).toEqual(['error', 'response.failed']);
    expect(text).toMatch(/Bedrock is unavailable/);
    expect(events).not.toContain('response.completed');
  });

  it("Bedrock's HTTP errors keep their meaning at both doors", async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 400, type: 'ValidationException', message: 'messages: text content blocks must be non-empty' });
    const e400 = (await h.anthropic.messages.create({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e)) as Any;
    expect(e400.status).toBe(400);
    expect(e400.error).toMatchObject({ error: { type: 'invalid_request_error', message: 'messages: text content blocks must be non-empty' } });

    h.upstream.enqueue({ kind: 'http-error', status: 400, type: 'ValidationException', message: 'Input is too long for requested model.' });
    const overflow = (await h.anthropic.messages.create({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e)) as Any;
    expect(overflow.status).toBe(400);
    expect(overflow.error.error.message).toMatch(/prompt is too long/); // the wording clients compact on

    h.upstream.enqueue({ kind: 'http-error', status: 503, type: 'ServiceUnavailableException', message: 'Service unavailable' });
    const e503 = (await h.anthropic.messages.create({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e)) as Any;
    expect(e503.status).toBe(529);
    expect(e503.error).toMatchObject({ error: { type: 'overloaded_error' } });

    h.upstream.enqueue({ kind: 'http-error', status: 429, type: 'ThrottlingException', message: 'Too many requests' });
    const e429 = (await h.openai.responses.create({ model: 'via-messages', input: 'Hi', store: false }).catch((e: unknown) => e)) as Any;
    expect(e429.status).toBe(429);
  });

  it("falls back from Anthropic's API to Bedrock before the first byte; /v1/models lists aliases only", async () => {
    h.firstParty.enqueue({ kind: 'http-error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'answered by Bedrock' }] });
    const text: string[] = [];
    const stream = h.anthropic.messages.stream({ model: 'claude-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    stream.on('text', (t) => text.push(t));
    const msg = await stream.finalMessage();
    expect(text.join('')).toBe('answered by Bedrock');
    expect(msg.model).toBe('claude-sonnet');
    expect(h.firstParty.received.at(-1)!.body.model).toBe('claude-sonnet-direct');
    expectBedrockEnvelope(last(h), true);

    const models = await (await fetch(h.url + '/v1/models', { headers: { 'x-api-key': 'caller-key', 'anthropic-version': '2023-06-01' } })).text();
    expect(models).toContain('claude-sonnet');
    expect(models).not.toMatch(/AKIA|amazonaws|bedrock-runtime|secret/i);
  });

  it('an inference-profile ARN as the model: one path segment, signed as AWS double-encodes it', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'via an ARN' }] });
    const msg = await h.anthropic.messages.create({ model: 'claude-arn', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
    expect(msg.content[0]).toMatchObject({ text: 'via an ARN' });
    const r = last(h);
    expect(r.modelId).toBe(ARN);
    expect(r.path).toBe(`/model/${encodeURIComponent(ARN)}/invoke`);
    expect(r.auth).toBe('sigv4');
  });

  it('count_tokens: Bedrock CountTokens for a model it counts, our estimate for an inference profile', async () => {
    const params = { model: 'claude-count', system: 'Be brief.', messages: [{ role: 'user' as const, content: 'How many tokens is this?' }] };
    const { data, response } = await h.anthropic.messages.countTokens(params).withResponse();
    expect(response.headers.get('x-switchyard-token-count')).toBe('upstream');
    const r = last(h);
    expect(r.operation).toBe('count-tokens');
    expect(r.modelId).toBe('anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(r.invokeBody).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', system: 'Be brief.', messages: params.messages });
    expect(r.invokeBody!.model).toBeUndefined();
    expect(data.input_tokens).toBe(Math.max(1, Math.ceil(JSON.stringify(r.invokeBody).length / 4)));

    // An inference profile: Bedrock refuses to count it; the caller still gets a count.
    const est = await h.anthropic.messages.countTokens({ ...params, model: 'via-messages' }).withResponse();
    expect(est.response.headers.get('x-switchyard-token-count')).toBe('estimate');
    expect(est.data.input_tokens).toBeGreaterThan(0);
    expect(last(h).modelId).toBe(MODEL);
  });
});

describe('gateway → Amazon Bedrock with a Bedrock API key', () => {
  let h: BedrockHarness;
  let restoreEnv: () => void;

  beforeAll(async () => {
    restoreEnv = setAwsEnv({});
    h = await startBedrockHarness({ model: MODEL, bedrock: { apiKeys: ['bedrock-api-key-gw'] }, provider: { api_key: 'bedrock-api-key-gw' } });
  });
  afterAll(async () => {
    await h?.close();
    restoreEnv?.();
  });

  it('sends Authorization: Bearer and no signature; both doors, streamed', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Keyed hello.' }] });
    const msg = await h.anthropic.messages.stream({ model: 'via-messages', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
    expect(msg.content[0]).toMatchObject({ text: 'Keyed hello.' });
    const r = last(h);
    expect(r.auth).toBe('api-key');
    expect(r.headers.authorization).toBe('Bearer bedrock-api-key-gw');
    expect(r.headers['x-amz-date']).toBeUndefined();
    expect(r.headers['x-api-key']).toBeUndefined();
    expect(r.body.model).toBeUndefined();

    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Keyed again.' }] });
    let text = '';
    for await (const ev of await h.openai.responses.create({ model: 'via-messages', input: 'Hi', stream: true, store: false })) {
      if (ev.type === 'response.output_text.delta') text += ev.delta;
    }
    expect(text).toBe('Keyed again.');
  });
});
