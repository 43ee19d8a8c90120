// The AI SDK's `@ai-sdk/openai-compatible` provider (how opencode and many apps speak Chat Completions)
// on the Chat Completions door, against each upstream protocol: generateText and streamText, a tool loop
// with stopWhen (the provider sends the first step's reasoning back as `reasoning_content`), and
// structured output. Each check asserts what the SDK returned and what the upstream received.
//
// The provider does not echo `reasoning_details`, so a Gemini call's thought signature does not come
// back: the loop runs against a Gemini 3 model, whose signature check the gateway meets with Google's
// documented stand-in (a warning says the reasoning state was lost); the scripted Gemini refuses a
// signed call sent back bare on any model.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, Output, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODELS, type Harness } from '../../support/gateway-harness.js';
import { viewOf } from '../../support/upstream-view.js';
import { generationsSince, mark, REASONING_TEXT, startFrameworkHarness, UPSTREAMS, viewsSince } from './framework-harness.js';

/** A Gemini 3 deployment (the scripted upstream applies Gemini 3's current-turn signature rule by name). */
const GEMINI_3 = { alias: 'via-gemini-3', upstream: 'gemini-3-upstream' };

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

let h: Harness;
beforeAll(async () => {
  h = await startFrameworkHarness({ [GEMINI_3.alias]: { provider: 'up-gemini', model: GEMINI_3.upstream } });
});
afterAll(async () => {
  await h?.close();
});

const provider = () => createOpenAICompatible({ name: 'switchyard', baseURL: h.url + '/v1', apiKey: 'caller-key', includeUsage: true, supportsStructuredOutputs: true });
const Weather = z.object({ city: z.string(), temp: z.number() });

describe.each(UPSTREAMS)('@ai-sdk/openai-compatible over the %s upstream', (upstream) => {
  const model = () => provider().chatModel(MODELS[upstream].alias);

  it('generateText and streamText: text and usage', async () => {
    const from = mark(h);
    const r = await generateText({ model: model(), prompt: 'hello there' });
    expect(r.text).toBe('You said: hello there');
    expect(r.finishReason).toBe('stop');
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.usage.totalTokens).toBe(r.usage.inputTokens! + r.usage.outputTokens!);
    const s = streamText({ model: model(), prompt: 'streamed hello' });
    let text = '';
    for await (const d of s.textStream) text += d;
    expect(text).toBe('You said: streamed hello');
    expect((await s.usage).outputTokens).toBeGreaterThan(0);
    expect(viewsSince(h, from, upstream).map((v) => v.userTexts)).toEqual([['hello there'], ['streamed hello']]);
  });

  it.each([false, true])('a tool loop with stopWhen (streamed: %s)', async (stream) => {
    const calls: string[] = [];
    const tools = {
      run_command: tool({
        description: 'Run a shell command and return what it printed',
        inputSchema: z.object({ command: z.string() }),
        execute: async ({ command }) => {
          calls.push(command);
          return 'printed:' + command.split(' ')[1];
        },
      }),
    };
    const from = mark(h);
    const loopModel = upstream === 'gemini' ? provider().chatModel(GEMINI_3.alias) : model();
    const args = { model: loopModel, prompt: 'Prove that tools work', tools, stopWhen: stepCountIs(4) };
    let text = '';
    let reasoning = '';
    if (stream) {
      const r = streamText(args);
      for await (const d of r.textStream) text += d;
      reasoning = (await r.steps)[0]!.reasoningText ?? '';
    } else {
      const r = await generateText(args);
      text = r.text;
      reasoning = r.steps[0]!.reasoningText ?? '';
    }
    expect(calls).toEqual(['echo switchyard-ok > switchyard-proof.txt && cat switchyard-proof.txt']);
    expect(text).toBe('Tool said: printed:switchyard-ok');
    expect(reasoning).toBe(REASONING_TEXT);
    const sent = h.upstream.received.slice(from);
    expect(sent).toHaveLength(2);
    const views = sent.map((r) => viewOf(upstream, r.body, r.path));
    expect(views[0]!.toolNames).toEqual(['run_command']);
    expect(views[1]!.toolResults.map((r) => r.text)).toEqual(['printed:switchyard-ok']);
    if (upstream === 'gemini') {
      const modelTurn = (views[1]!.raw.contents as { role: string; parts: { functionCall?: unknown; thoughtSignature?: string }[] }[]).find((c) => c.role === 'model')!;
      expect(modelTurn.parts.find((p) => p.functionCall)!.thoughtSignature).toBe('skip_thought_signature_validator');
    }
  });

  it('structured output (Output.object): the schema reached the upstream', async () => {
    const from = mark(h);
    const r = await generateText({ model: model(), prompt: 'weather as JSON', output: Output.object({ schema: Weather }) });
    expect(Weather.safeParse(r.output).success).toBe(true);
    const [sent] = generationsSince(h, from, upstream);
    expect(JSON.stringify(sent!.body)).toContain('"temp":{"type":"number"}');
  });
});
