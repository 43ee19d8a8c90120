// The Vercel AI SDK (`ai` 7) through the gateway: `@ai-sdk/anthropic` on the Messages door and
// `@ai-sdk/openai`'s Responses provider (its default for OpenAI models) on the Responses door, store on
// (earlier turns come back as item_reference) and off (as full items), against each upstream protocol.
// Each check asserts what the SDK returned and what the upstream received.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, Output, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODELS, type Harness, type UpstreamProtocol } from '../../support/gateway-harness.js';
import {
  generationsSince,
  mark,
  reasoningAlias,
  reasoningRequested,
  REASONING_TEXT,
  startFrameworkHarness,
  UPSTREAMS,
  viewsSince,
} from './framework-harness.js';

// The SDK logs unsupported-feature warnings to the console; the tests assert on behaviour instead.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

let h: Harness;
beforeAll(async () => {
  h = await startFrameworkHarness();
});
afterAll(async () => {
  await h?.close();
});

const anthropicFor = () => createAnthropic({ baseURL: h.url + '/v1', apiKey: 'caller-key' });
const openaiFor = () => createOpenAI({ baseURL: h.url + '/v1', apiKey: 'caller-key' });

/** The tool the scripted model calls first; its output comes back in the model's final answer. */
const runCommand = () => {
  const calls: string[] = [];
  return {
    calls,
    tools: {
      run_command: tool({
        description: 'Run a shell command and return what it printed',
        inputSchema: z.object({ command: z.string() }),
        execute: async ({ command }) => {
          calls.push(command);
          return 'printed:' + command.split(' ')[1];
        },
      }),
    },
  };
};
const FINAL = 'Tool said: printed:switchyard-ok';

const Weather = z.object({ city: z.string(), temp: z.number() });

async function runLoop(model: LanguageModel, stream: boolean, providerOptions: Record<string, any>) { // eslint-disable-line @typescript-eslint/no-explicit-any
  const { calls, tools } = runCommand();
  const args = { model, prompt: 'Prove that tools work', tools, stopWhen: stepCountIs(4), providerOptions, maxOutputTokens: 4096 };
  if (!stream) {
    const r = await generateText(args);
    return { calls, text: r.text, steps: r.steps.length, reasoning: r.steps[0]!.reasoningText ?? '', usage: r.totalUsage };
  }
  const r = streamText(args);
  let text = '';
  for await (const delta of r.textStream) text += delta;
  const steps = await r.steps;
  return { calls, text, steps: steps.length, reasoning: steps[0]!.reasoningText ?? '', usage: await r.totalUsage };
}

function expectLoopUpstream(upstream: UpstreamProtocol, from: number, reasoning: boolean): ReturnType<typeof viewsSince> {
  const views = viewsSince(h, from, upstream);
  expect(views).toHaveLength(2);
  expect(views[0]!.toolNames).toEqual(['run_command']);
  const second = views[1]!;
  // Gemini's calls here carry no ids (as on Vertex): the gateway made its own and sends none back.
  expect(second.toolResults).toEqual([{ id: upstream === 'gemini' ? undefined : expect.any(String), text: 'printed:switchyard-ok' }]);
  if (upstream !== 'responses' || second.toolCalls.length) expect(second.toolCalls).toEqual([{ id: second.toolResults[0]!.id, name: 'run_command' }]);
  if (reasoning) for (const v of views) expect(reasoningRequested(upstream, v.raw)).toBe(true);
  return views;
}

describe.each(UPSTREAMS)('AI SDK over the %s upstream', (upstream) => {
  describe('@ai-sdk/anthropic (Messages door)', () => {
    const model = () => anthropicFor()(MODELS[upstream].alias);

    it('generateText and streamText: text and usage', async () => {
      const from = mark(h);
      const r = await generateText({ model: model(), prompt: 'hello there', maxOutputTokens: 1024 });
      expect(r.text).toBe('You said: hello there');
      expect(r.finishReason).toBe('stop');
      expect(r.usage.inputTokens).toBeGreaterThan(0);
      expect(r.usage.outputTokens).toBeGreaterThan(0);
      const s = streamText({ model: model(), prompt: 'streamed hello', maxOutputTokens: 1024 });
      let text = '';
      for await (const d of s.textStream) text += d;
      expect(text).toBe('You said: streamed hello');
      expect((await s.usage).outputTokens).toBeGreaterThan(0);
      const views = viewsSince(h, from, upstream);
      expect(views.map((v) => v.userTexts)).toEqual([['hello there'], ['streamed hello']]);
      expect(views.map((v) => v.stream)).toEqual(upstream === 'messages' ? [false, true] : [expect.any(Boolean), expect.any(Boolean)]);
    });

    it.each([false, true])('a tool loop with stopWhen and thinking (streamed: %s)', async (stream) => {
      const from = mark(h);
      const r = await runLoop(model(), stream, { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } });
      expect(r.calls).toEqual(['echo switchyard-ok > switchyard-proof.txt && cat switchyard-proof.txt']);
      expect(r.text).toBe(FINAL);
      expect(r.steps).toBe(2);
      expect(r.reasoning).toBe(REASONING_TEXT);
      expect(r.usage.inputTokens).toBeGreaterThan(0);
      const views = expectLoopUpstream(upstream, from, true);
      // The thinking of the first step goes back upstream with its opaque state, in that upstream's form.
      if (upstream === 'messages') expect(views[1]!.opaque).toEqual(['opaque-messages-1']);
      if (upstream === 'responses') expect(views[1]!.opaque).toEqual(['opaque-responses-1']);
    });

    it('structured output (Output.object)', async () => {
      const from = mark(h);
      const r = await generateText({ model: model(), prompt: 'weather as JSON', output: Output.object({ schema: Weather }), maxOutputTokens: 1024 });
      expect(Weather.safeParse(r.output).success).toBe(true);
      const [sent] = generationsSince(h, from, upstream);
      expect(JSON.stringify(sent!.body)).toContain('"temp":{"type":"number"}');
    });
  });

  describe.each([true, false])('@ai-sdk/openai Responses provider (store: %s)', (store) => {
    const model = (alias = MODELS[upstream].alias) => openaiFor().responses(alias);
    const openaiOptions = (extra: Record<string, unknown> = {}) => ({ openai: { store, ...extra } });

    it('generateText and streamText: text and usage', async () => {
      const from = mark(h);
      const r = await generateText({ model: model(), prompt: 'hello there', providerOptions: openaiOptions() });
      expect(r.text).toBe('You said: hello there');
      expect(r.usage.inputTokens).toBeGreaterThan(0);
      expect(r.usage.totalTokens).toBe(r.usage.inputTokens! + r.usage.outputTokens!);
      const s = streamText({ model: model(), prompt: 'streamed hello', providerOptions: openaiOptions() });
      let text = '';
      for await (const d of s.textStream) text += d;
      expect(text).toBe('You said: streamed hello');
      expect((await s.usage).outputTokens).toBeGreaterThan(0);
      expect(viewsSince(h, from, upstream).map((v) => v.userTexts)).toEqual([['hello there'], ['streamed hello']]);
    });

    it.each([false, true])('a tool loop with stopWhen and reasoning options (streamed: %s)', async (stream) => {
      const from = mark(h);
      const r = await runLoop(model(reasoningAlias(upstream)), stream, openaiOptions({ reasoningEffort: 'low', reasoningSummary: 'auto' }));
      expect(r.calls).toHaveLength(1);
      expect(r.text).toBe(FINAL);
      expect(r.steps).toBe(2);
      expect(r.reasoning).toBe(REASONING_TEXT);
      expect(r.usage.outputTokens).toBeGreaterThan(0);
      const [first, second] = generationsSince(h, from, upstream);
      expectLoopUpstream(upstream, from, true);
      const input = JSON.stringify(second!.body[upstream === 'messages' || upstream === 'chat' ? 'messages' : upstream === 'gemini' ? 'contents' : 'input']);
      if (upstream === 'responses') {
        // Pass-through: with store on, the earlier reasoning reaches OpenAI as the reference the SDK
        // sent (OpenAI resolves its own items); with store off, as the full item with its opaque state.
        expect(input.includes('"type":"item_reference"')).toBe(store);
        if (!store) expect(input).toContain('"encrypted_content":"opaque-responses-1"');
        expect(first!.body.store ?? true).toBe(store);
      } else {
        // Translated: references were resolved from the gateway's store, so the upstream sees the
        // first step's reasoning in its own form.
        expect(input).not.toContain('item_reference');
        if (upstream === 'messages') expect(input).toContain('"signature":"opaque-messages-1"');
        else if (upstream === 'gemini') expect(input).toContain('"thoughtSignature":"opaque-gemini-1"');
        else expect(input).toContain(REASONING_TEXT);
      }
    });

    it('structured output (Output.object)', async () => {
      const from = mark(h);
      const r = await generateText({ model: model(), prompt: 'weather as JSON', output: Output.object({ schema: Weather }), providerOptions: openaiOptions() });
      expect(r.output).toEqual({ city: 'switchyard-ok', temp: 0 });
      const [sent] = generationsSince(h, from, upstream);
      expect(JSON.stringify(sent!.body)).toContain('"temp":{"type":"number"}');
    });
  });
});
