// The Gemini upstream end to end, with the official SDKs as callers and the scripted Gemini upstream
// (proven with @google/genai in test/unit/support) asserting what it received: a two-turn tool loop
// with thinking whose thought signatures must come back unchanged (the upstream refuses otherwise),
// through both doors, streamed and not; safety finishes and a blocked prompt in each door's forms;
// usage; count_tokens through :countTokens; fallback Gemini → Claude and Claude → Gemini before the
// first byte; the metrics' upstream_protocol label.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import type { ReceivedRequest } from '../support/scripted-upstream/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WEATHER = { name: 'get_weather', description: 'Current weather for a city', schema: { type: 'object', properties: { city: { type: 'string', minLength: 1 } }, required: ['city'] } };

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    config: (url) => ({
      providers: {
        gem: { protocol: 'gemini', base_url: url + '/v1beta', api_key: 'AIza-gateway-key', retry: { attempts: 1 } },
        claude: { protocol: 'messages', base_url: url, api_key: 'sk-ant-gateway', retry: { attempts: 1 } },
      },
      models: {
        'gemini-thinker': { provider: 'gem', model: 'gemini-3-pro-preview' },
        'gemini-then-claude': { targets: [{ provider: 'gem', model: 'gemini-2.5-flash' }, { provider: 'claude', model: 'claude-sonnet-4-5' }] },
        'claude-then-gemini': { targets: [{ provider: 'claude', model: 'claude-sonnet-4-5' }, { provider: 'gem', model: 'gemini-2.5-flash' }] },
      },
    }),
  });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.upstream.received.length = 0;
});

const geminiCalls = (): ReceivedRequest[] => h.upstream.received.filter((r) => r.protocol === 'gemini' && !/countTokens/.test(r.path));
const lastGemini = (): Json => geminiCalls()[geminiCalls().length - 1]!.body;

/** The scripted first turn: thought summary, two id-less calls (the first signed, as Gemini 3 does). */
function enqueueToolTurn(): void {
  h.upstream.enqueue({
    kind: 'reply',
    blocks: [
      { type: 'reasoning', text: 'Two cities, two calls.', opaque: 'Q2lRQmp6MXJY+/signature==' },
      { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ],
    geminiNoCallIds: true,
    usage: { input: 50, output: 40, reasoning: 25, cacheRead: 30 },
  });
}

function expectSecondTurnHistory(body: Json): void {
  const model = body.contents[1];
  expect(model.role).toBe('model');
  expect(model.parts).toEqual([
    { text: 'Two cities, two calls.', thought: true },
    { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'Q2lRQmp6MXJY+/signature==' },
    { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
  ]);
  expect(body.contents[2]).toEqual({
    role: 'user',
    parts: [
      { functionResponse: { name: 'get_weather', response: { output: 'Paris: 21C' } } },
      { functionResponse: { name: 'get_weather', response: { output: 'Rome: 25C' } } },
    ],
  });
}

describe('Gemini upstream through the Messages door', () => {
  for (const stream of [false, true]) {
    it(`two-turn tool loop with thinking: signatures back unchanged (${stream ? 'streamed' : 'not streamed'})`, async () => {
      enqueueToolTurn();
      const params: Anthropic.MessageCreateParamsNonStreaming = {
        model: 'gemini-thinker',
        max_tokens: 16000,
        thinking: { type: 'enabled', budget_tokens: 6000 },
        tools: [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.schema as Anthropic.Tool.InputSchema }],
        messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
      };
      const first = stream ? await h.anthropic.messages.stream(params).finalMessage() : await h.anthropic.messages.create(params);
      expect(first.stop_reason).toBe('tool_use');
      const thinking = first.content.filter((b) => b.type === 'thinking');
      expect(thinking).toHaveLength(1);
      expect(thinking[0]).toMatchObject({ thinking: 'Two cities, two calls.' });
      const calls = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
      expect(calls.map((c) => c.input)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
      expect(new Set(calls.map((c) => c.id)).size).toBe(2);
      expect(first.usage).toMatchObject({ input_tokens: 50, cache_read_input_tokens: 30, output_tokens: 40 });
      const sent = lastGemini();
      // max_tokens 16000 is above stream_upstream auto's bound: the gateway streams from Gemini either way.
      expect(geminiCalls()[0]!.url).toBe('/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse');
      expect(geminiCalls()[0]!.headers['x-goog-api-key']).toBe('AIza-gateway-key');
      expect(sent.generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: 'MEDIUM' });
      expect(sent.tools[0].functionDeclarations[0].parametersJsonSchema).toEqual({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });

      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Paris 21C, Rome 25C.' }] });
      const second = await h.anthropic.messages.create({
        ...params,
        messages: [
          ...params.messages,
          { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: calls[0]!.id, content: 'Paris: 21C' },
              { type: 'tool_result', tool_use_id: calls[1]!.id, content: 'Rome: 25C' },
            ],
          },
        ],
      });
      expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: 'Paris 21C, Rome 25C.' })]);
      expectSecondTurnHistory(lastGemini());

      // A caller that drops the thinking block loses the signature: Gemini 3 would refuse the step, so the
      // driver sends Google's documented stand-in for it, and says so.
      const stripped = first.content.filter((b) => b.type !== 'thinking') as Anthropic.ContentBlockParam[];
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Still fine.' }] });
      const { data: third, response } = await h.anthropic.messages
        .create({ ...params, messages: [...params.messages, { role: 'assistant', content: stripped }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: calls[0]!.id, content: 'x' }, { type: 'tool_result', tool_use_id: calls[1]!.id, content: 'y' }] }] })
        .withResponse();
      expect(third.content).toEqual([expect.objectContaining({ text: 'Still fine.' })]);
      expect(response.headers.get('x-switchyard-warnings')).toMatch(/reasoning/);
      expect(lastGemini().contents[1].parts[0]).toEqual({ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' });
    });
  }

  it('SAFETY is a refusal; a blocked prompt is a 400 naming the reason', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Here is' }], stop: 'refusal' });
    const refused = await h.anthropic.messages.stream({ model: 'gemini-thinker', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    expect(refused.stop_reason).toBe('refusal');
    h.upstream.enqueue({ kind: 'reply', blocks: [], geminiPromptBlock: 'PROHIBITED_CONTENT' });
    const err = await h.anthropic.messages.create({ model: 'gemini-thinker', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] }).then(() => ({ status: 0, error: {} as Json }), (e: unknown) => e as { status: number; error: Json });
    expect(err.status).toBe(400);
    expect(err.error.error).toMatchObject({ type: 'invalid_request_error', message: 'Gemini blocked the prompt (PROHIBITED_CONTENT)' });
  });

  it('streamed: a blocked prompt is still a 400 (nothing was sent yet); a SAFETY finish with no content is a refusal', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [], geminiPromptBlock: 'SAFETY' });
    const err = await h.anthropic.messages
      .stream({ model: 'gemini-thinker', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage()
      .then(() => ({ status: 0, error: {} as Json }), (e: unknown) => e as { status: number; error: Json });
    expect(err.status).toBe(400);
    expect(err.error.error).toMatchObject({ type: 'invalid_request_error', message: 'Gemini blocked the prompt (SAFETY)' });
    h.upstream.enqueue({ kind: 'reply', blocks: [], stop: 'refusal' });
    const empty = await h.openai.responses.stream({ model: 'gemini-thinker', input: 'x', store: false, stream: true }).finalResponse();
    expect(empty.status).toBe('incomplete');
    expect(empty.incomplete_details).toEqual({ reason: 'content_filter' });
  });

  it('count_tokens goes to :countTokens', async () => {
    const counted = await h.anthropic.messages.countTokens({ model: 'gemini-thinker', messages: [{ role: 'user', content: 'Count these words please' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const rec = h.upstream.received.find((r) => /countTokens/.test(r.path))!;
    expect(rec.path).toBe('/v1beta/models/gemini-3-pro-preview:countTokens');
    expect(rec.body.generateContentRequest.contents).toEqual([{ role: 'user', parts: [{ text: 'Count these words please' }] }]);
  });
});

describe('Gemini upstream through the Responses door', () => {
  for (const stream of [false, true]) {
    it(`two-turn tool loop with reasoning: signatures back unchanged (${stream ? 'streamed' : 'not streamed'})`, async () => {
      enqueueToolTurn();
      const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
        model: 'gemini-thinker',
        input: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
        tools: [{ type: 'function', name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema, strict: false }],
        reasoning: { effort: 'high', summary: 'auto' },
        include: ['reasoning.encrypted_content'],
        store: false,
      };
      const first = stream ? await h.openai.responses.stream({ ...params, stream: true }).finalResponse() : await h.openai.responses.create(params);
      expect(first.status).toBe('completed');
      const calls = (first.output as OpenAI.Responses.ResponseOutputItem[]).filter((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === 'function_call');
      expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
      const reasoning = first.output.filter((i) => i.type === 'reasoning');
      expect(reasoning).toHaveLength(1);
      expect(first.usage).toMatchObject({ input_tokens: 80, output_tokens: 40, input_tokens_details: { cached_tokens: 30 }, output_tokens_details: { reasoning_tokens: 25 } });
      expect(lastGemini().generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: 'HIGH' });

      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Paris 21C, Rome 25C.' }] });
      const second = await h.openai.responses.create({
        ...params,
        input: [
          ...(params.input as OpenAI.Responses.ResponseInputItem[]),
          ...(first.output as OpenAI.Responses.ResponseInputItem[]),
          { type: 'function_call_output', call_id: calls[0]!.call_id, output: 'Paris: 21C' },
          { type: 'function_call_output', call_id: calls[1]!.call_id, output: 'Rome: 25C' },
        ],
      });
      expect(second.output_text).toBe('Paris 21C, Rome 25C.');
      expectSecondTurnHistory(lastGemini());
    });
  }

  it('SAFETY is incomplete/content_filter; MAX_TOKENS is incomplete/max_output_tokens', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Here is' }], stop: 'refusal' });
    const refused = await h.openai.responses.create({ model: 'gemini-thinker', input: 'x', store: false });
    expect(refused.status).toBe('incomplete');
    expect(refused.incomplete_details).toEqual({ reason: 'content_filter' });
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Once upon' }], stop: 'max_tokens' });
    const cut = await h.openai.responses.create({ model: 'gemini-thinker', input: 'x', store: false, max_output_tokens: 20 });
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(geminiCalls()[geminiCalls().length - 1]!.path).toBe('/v1beta/models/gemini-3-pro-preview:generateContent'); // bounded: one body
    expect(lastGemini().generationConfig.maxOutputTokens).toBe(20);
  });

  it('RESOURCE_EXHAUSTED is a 429 with retry-after from RetryInfo', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 429, message: 'quota', retryAfter: '11' });
    const err = await h.openai.responses.create({ model: 'gemini-thinker', input: 'x', store: false }).then(() => ({ status: 0, headers: new Headers(), error: {} as Json }), (e: unknown) => e as { status: number; headers: Headers; error: Json });
    expect(err.status).toBe(429);
    expect(err.headers.get('retry-after')).toBe('11');
    expect(err.error).toMatchObject({ code: 'rate_limit_exceeded' });
  });
});

describe('fallback across vendors before the first byte', () => {
  it('Gemini 503 → Claude answers; Claude 529 → Gemini answers', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 503, message: 'The model is overloaded.' }, { kind: 'reply', blocks: [{ type: 'text', text: 'Claude here.' }] });
    const a = await h.anthropic.messages.stream({ model: 'gemini-then-claude', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(a.content).toEqual([expect.objectContaining({ text: 'Claude here.' })]);
    expect(h.upstream.received.map((r) => r.protocol)).toEqual(['gemini', 'messages']);

    h.upstream.received.length = 0;
    h.upstream.enqueue({ kind: 'http-error', status: 529, type: 'overloaded_error' }, { kind: 'reply', blocks: [{ type: 'text', text: 'Gemini here.' }] });
    const b = await h.openai.responses.create({ model: 'claude-then-gemini', input: 'hi', store: false });
    expect(b.output_text).toBe('Gemini here.');
    expect(h.upstream.received.map((r) => r.protocol)).toEqual(['messages', 'gemini']);
    // No max_output_tokens: an unbounded answer is streamed from the upstream (stream_upstream auto).
    expect(geminiCalls()[0]!.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });
});

describe('metrics', () => {
  it('upstream_protocol="gemini"', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    await h.anthropic.messages.create({ model: 'gemini-thinker', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    const text = await (await fetch(h.url + '/metrics')).text();
    expect(text).toMatch(/switchyard_requests_total\{[^}]*upstream_protocol="gemini"[^}]*\} \d+/);
  });
});
