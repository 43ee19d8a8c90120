// max_tokens below the upstream's minimum (mapping.md §15.54), through the Anthropic SDK: a Messages
// caller asking for 5 tokens from a Responses upstream (which takes max_output_tokens ≥ 16) gets 16
// asked upstream, and back at most 5 tokens' worth of the text, stop_reason max_tokens, the upstream's
// real output count in usage and a warning header — streamed and not, from a streamed and a
// non-streamed upstream call. Chat has no such minimum: its limit goes as asked, nothing is cut.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHARS_PER_TOKEN } from '../../src/ir/estimate-tokens.js';
import { MODELS, startHarness, type Harness } from '../support/gateway-harness.js';

const SIXTEEN_TOKENS = 'Paris is the capital of France, on the Seine, home to the Louvre.';
const UPSTREAM_OUTPUT = 16;

let h: Harness;
beforeAll(async () => {
  const provider = (protocol: string, base: string, extra: Record<string, unknown> = {}) => ({
    protocol,
    base_url: protocol === 'messages' ? base : base + '/v1',
    api_key: `upstream-key-${protocol}`,
    retry: { attempts: 1 },
    ...extra,
  });
  h = await startHarness({
    config: (base) => ({
      providers: {
        'up-messages': provider('messages', base),
        'up-responses': provider('responses', base),
        'up-chat': provider('chat', base),
        // Non-streamed callers of this one still get a streamed upstream call (under `auto` a short
        // bounded answer is fetched whole).
        'up-responses-streamed': provider('responses', base, { stream_upstream: true }),
      },
      models: {
        [MODELS.messages.alias]: { provider: 'up-messages', model: MODELS.messages.upstream },
        [MODELS.responses.alias]: { provider: 'up-responses', model: MODELS.responses.upstream },
        [MODELS.chat.alias]: { provider: 'up-chat', model: MODELS.chat.upstream },
        'via-responses-streamed': { provider: 'up-responses-streamed', model: MODELS.responses.upstream },
      },
    }),
  });
});
afterAll(async () => {
  await h?.close();
});

function scriptSixteen(): void {
  h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: SIXTEEN_TOKENS }], stop: 'max_tokens', usage: { output: UPSTREAM_OUTPUT } });
}

const ask = (model: string, maxTokens: number) => ({ model, max_tokens: maxTokens, messages: [{ role: 'user' as const, content: 'What is the capital of France?' }] });

function expectCut(message: Anthropic.Message, maxTokens: number): void {
  expect(message.stop_reason).toBe('max_tokens');
  expect(message.content).toHaveLength(1);
  const text = (message.content[0] as Anthropic.TextBlock).text;
  expect(text).toBe(SIXTEEN_TOKENS.slice(0, maxTokens * CHARS_PER_TOKEN));
  // The tokens the upstream generated (and billed), not the caller's limit.
  expect(message.usage.output_tokens).toBe(UPSTREAM_OUTPUT);
}

describe.each(['via-responses', 'via-responses-streamed'])('max_tokens 5 toward a Responses upstream (%s)', (model) => {
  it('not streamed: 16 asked upstream, the text cut to 5 tokens’ worth, stop_reason max_tokens, a warning', async () => {
    scriptSixteen();
    const before = h.upstream.received.length;
    const { data, response } = await h.anthropic.messages.create(ask(model, 5)).withResponse();
    expect(h.upstream.received.slice(before).map((r) => [r.body.max_output_tokens, r.stream])).toEqual([[16, model === 'via-responses-streamed']]);
    expectCut(data, 5);
    expect(response.headers.get('x-switchyard-warnings')).toContain('max_tokens');
  });

  it('streamed: the same cut in the SDK’s final message, and no text delta past it', async () => {
    scriptSixteen();
    const stream = h.anthropic.messages.stream(ask(model, 5));
    let streamed = '';
    stream.on('text', (t) => (streamed += t));
    const final = await stream.finalMessage();
    expectCut(final, 5);
    expect(streamed).toBe(SIXTEEN_TOKENS.slice(0, 15));
  });
});

describe('limits the upstream takes as asked are never cut', () => {
  it('max_tokens 16 toward Responses: the whole answer', async () => {
    scriptSixteen();
    const msg = await h.anthropic.messages.create(ask('via-responses', 16));
    expect((msg.content[0] as Anthropic.TextBlock).text).toBe(SIXTEEN_TOKENS);
  });

  it('max_tokens 5 toward Chat (no minimum above 1): sent as 5, the answer as the upstream gave it', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Paris.' }], stop: 'max_tokens', usage: { output: 5 } });
    const before = h.upstream.received.length;
    const { data, response } = await h.anthropic.messages.create(ask(MODELS.chat.alias, 5)).withResponse();
    const body = h.upstream.received[before]!.body;
    expect(body.max_completion_tokens ?? body.max_tokens).toBe(5);
    expect((data.content[0] as Anthropic.TextBlock).text).toBe('Paris.');
    expect(response.headers.get('x-switchyard-warnings') ?? '').not.toContain('max_tokens');
  });
});
