// The Gemini door translated to a Chat Completions upstream, with @google/genai as the client (the
// Messages and Responses upstreams are in translated.test.ts): generateContent, both stream forms, and
// a two-turn function-calling loop whose reasoning text (DeepSeek-style `reasoning_content`) goes back
// to the upstream on turn two — with what the scripted upstream received asserted each time.
import { GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';
import type { ReceivedRequest } from '../../support/scripted-upstream/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let h: Harness;
let genai: GoogleGenAI;
const model = MODELS.chat.alias;

beforeAll(async () => {
  h = await startHarness();
  genai = new GoogleGenAI({ apiKey: 'caller-key', httpOptions: { baseUrl: h.url } });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.upstream.received.length = 0;
});

const last = (): ReceivedRequest => h.upstream.received[h.upstream.received.length - 1]!;

async function collect(stream: AsyncGenerator<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const out: GenerateContentResponse[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

const WEATHER = { name: 'get_weather', description: 'Current weather for a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

describe('Gemini door → Chat Completions upstream', () => {
  it('generateContent: text, system instruction, sampling and stops in Chat spelling; usage and finish back', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello from chat.' }], usage: { input: 12, output: 5 } });
    const res = await genai.models.generateContent({
      model,
      contents: 'Say hello.',
      config: { systemInstruction: 'Be brief.', maxOutputTokens: 200, temperature: 0.3, topP: 0.9, stopSequences: ['END'] },
    });
    expect(res.text).toBe('Hello from chat.');
    expect(res.candidates?.[0]?.finishReason).toBe('STOP');
    expect(res.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 });
    expect(res.modelVersion).toBe(model);
    const sent = last();
    expect(sent.protocol).toBe('chat');
    expect(sent.stream).toBe(false);
    expect(sent.body).toMatchObject({ model: MODELS.chat.upstream, temperature: 0.3, top_p: 0.9, stop: ['END'] });
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello.' },
    ]);
  });

  it('streamGenerateContent through the SDK (alt=sse) and as the JSON array: the same text, finish and usage', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'One two three four five six.' }], usage: { input: 9, output: 6 } });
    const chunks = await collect(await genai.models.generateContentStream({ model, contents: 'Count.' }));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.text ?? '').join('')).toBe('One two three four five six.');
    expect(chunks[chunks.length - 1]!.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks[chunks.length - 1]!.usageMetadata).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 6, totalTokenCount: 15 });
    // The gateway always asks a Chat upstream for its usage chunk.
    expect(last().body).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Array form answer.' }], usage: { input: 4, output: 3 } });
    const res = await fetch(`${h.url}/v1beta/models/${model}:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'caller-key' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Answer.' }] }] }),
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const array = JSON.parse(await res.text()) as Json[];
    expect(array.map((c) => c.candidates[0].content.parts.map((p: Json) => p.text).join('')).join('')).toBe('Array form answer.');
    expect(array[array.length - 1]!.usageMetadata.totalTokenCount).toBe(7);
  });

  for (const stream of [false, true]) {
    it(`two-turn function calling with reasoning text: the call, its result and the reasoning go back in Chat form (${stream ? 'streamed' : 'not streamed'})`, async () => {
      h.upstream.enqueue({
        kind: 'reply',
        blocks: [
          { type: 'reasoning', text: 'Need the weather tool.' },
          { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
        usage: { input: 30, output: 20, reasoning: 12 },
      });
      const config = { tools: [{ functionDeclarations: [WEATHER] }], thinkingConfig: { includeThoughts: true } };
      const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }];
      let parts;
      if (stream) {
        const chunks = await collect(await genai.models.generateContentStream({ model, contents, config }));
        parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
        expect(chunks[chunks.length - 1]!.candidates?.[0]?.finishReason).toBe('STOP');
      } else {
        const first = await genai.models.generateContent({ model, contents, config });
        parts = first.candidates![0]!.content!.parts!;
        expect(first.usageMetadata).toMatchObject({ promptTokenCount: 30, thoughtsTokenCount: 12, totalTokenCount: 50 });
      }
      expect(parts.filter((p) => p.thought).map((p) => p.text).join('')).toBe('Need the weather tool.');
      const call = parts.find((p) => p.functionCall)!;
      expect(call.functionCall).toMatchObject({ name: 'get_weather', args: { city: 'Oslo' } });
      expect(last().body.tools[0]).toEqual({ type: 'function', function: { name: 'get_weather', description: WEATHER.description, parameters: WEATHER.parametersJsonSchema } });

      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Oslo: 3C.' }] });
      const second = await genai.models.generateContent({
        model,
        config,
        contents: [
          ...contents,
          { role: 'model', parts: [{ functionCall: call.functionCall, thoughtSignature: call.thoughtSignature }] },
          { role: 'user', parts: [{ functionResponse: { id: call.functionCall!.id, name: 'get_weather', response: { output: '3C' } } }] },
        ],
      });
      expect(second.text).toBe('Oslo: 3C.');
      const messages = last().body.messages as Json[];
      const assistant = messages.find((m) => m.role === 'assistant')!;
      expect(assistant.tool_calls).toHaveLength(1);
      expect(assistant.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } });
      // The provider echoes reasoning_content (harness: echo_reasoning_content), as DeepSeek requires.
      expect(assistant.reasoning_content).toBe('Need the weather tool.');
      expect(messages.find((m) => m.role === 'tool')).toMatchObject({ tool_call_id: assistant.tool_calls[0].id, content: '3C' });
    });
  }
});
