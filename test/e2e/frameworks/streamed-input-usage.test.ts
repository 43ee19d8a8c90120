// Input tokens of a streamed Messages answer from an upstream that reports usage only at the end
// (OpenAI Responses and Chat): LangChain's ChatAnthropic reads input tokens from message_start alone,
// so message_start carries the gateway's estimate (mapping.md §15.53); the Anthropic SDK's
// MessageStream takes the exact figures message_delta carries. Through an Anthropic upstream
// (pass-through) message_start already holds the upstream's exact count.
//
// The exact count the scripted upstream reports is a realistic one for the prompt: 80 tokens by OpenAI's
// o200k_base tokenizer (measured offline with js-tiktoken) plus 7 for OpenAI's message framing = 87,
// of which 32 are reported as a cache read. The gateway's estimate (≈ 1 token per 3 characters) lands
// within 10 % of it for this code-heavy prompt; for plain prose it errs higher (see §15.53).
import { ChatAnthropic } from '@langchain/anthropic';
import type { AIMessageChunk } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateInputTokens } from '../../../src/ir/estimate-tokens.js';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../../support/gateway-harness.js';

for (const name of ['LANGSMITH_TRACING', 'LANGCHAIN_TRACING_V2', 'LANGCHAIN_TRACING']) delete process.env[name];

const PROMPT =
  "Why does this print 13 and not 3?\n```js\nconst add = (a, b) => a + b;\nconst xs = ['1', 2];\nconsole.log(add(xs[0], xs[1]) + 1);\n```\nExplain the coercion step by step, then fix add() so it always returns a number: parseInt? Number()? unary +?";
const EXACT_INPUT = 87;
const CACHED = 32;
const OUTPUT = 24;
const ANSWER = "'1' + 2 is the string '12', and '12' + 1 is '121'... it prints 121, in fact.";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

function scriptAnswer(): void {
  h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: ANSWER }], usage: { input: EXACT_INPUT - CACHED, cacheRead: CACHED, output: OUTPUT } });
}

const chat = (upstream: UpstreamProtocol) =>
  new ChatAnthropic({ model: MODELS[upstream].alias, anthropicApiUrl: h.url, apiKey: 'caller-key', maxRetries: 0, maxTokens: 512 });

async function langchainStream(upstream: UpstreamProtocol): Promise<AIMessageChunk> {
  scriptAnswer();
  let full: AIMessageChunk | undefined;
  for await (const chunk of await chat(upstream).stream(PROMPT)) full = full === undefined ? chunk : full.concat(chunk);
  expect(full?.text).toBe(ANSWER);
  return full!;
}

describe.each(['responses', 'chat'] as const)('streamed through the %s upstream (usage only at the end)', (upstream) => {
  it('LangChain ChatAnthropic: input tokens > 0 and within 10 % of the exact count', async () => {
    const full = await langchainStream(upstream);
    const input = full.usage_metadata?.input_tokens ?? 0;
    expect(input).toBeGreaterThan(0);
    expect(Math.abs(input - EXACT_INPUT) / EXACT_INPUT).toBeLessThanOrEqual(0.1);
    expect(full.usage_metadata?.output_tokens).toBe(OUTPUT);
  });

  it('LangChain non-streamed: the exact count', async () => {
    scriptAnswer();
    const msg = await chat(upstream).invoke(PROMPT);
    expect(msg.usage_metadata).toMatchObject({ input_tokens: EXACT_INPUT, output_tokens: OUTPUT, input_token_details: { cache_read: CACHED } });
  });

  it('Anthropic SDK MessageStream: message_start holds the estimate, finalMessage() the exact figures', async () => {
    scriptAnswer();
    const starts: number[] = [];
    const stream = h.anthropic.messages.stream({ model: MODELS[upstream].alias, max_tokens: 512, messages: [{ role: 'user', content: PROMPT }] });
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_start') starts.push(event.message.usage.input_tokens);
    });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: ANSWER })]);
    expect(final.usage).toMatchObject({ input_tokens: EXACT_INPUT - CACHED, cache_read_input_tokens: CACHED, cache_creation_input_tokens: 0, output_tokens: OUTPUT });
    // The estimate is the gateway's own count of the request, the count_tokens machinery.
    expect(starts).toHaveLength(1);
    expect(starts[0]).toBe(
      estimateInputTokens({
        model: MODELS[upstream].alias,
        system: [],
        turns: [{ role: 'user', parts: [{ type: 'text', text: PROMPT }] }],
        tools: [],
        stopSequences: [],
        stream: true,
        sourceProtocol: 'messages',
        extras: {},
      }),
    );
    expect(starts[0]).not.toBe(EXACT_INPUT - CACHED);
  });
});

describe('streamed through an Anthropic upstream (pass-through)', () => {
  it('LangChain reads the upstream’s exact count from message_start, unchanged', async () => {
    const full = await langchainStream('messages');
    expect(full.usage_metadata?.input_tokens).toBe(EXACT_INPUT);
  });
});
