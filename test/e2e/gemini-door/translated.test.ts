// The Gemini door translated to a Messages and a Responses upstream, with @google/genai as the client:
// generateContent, streamGenerateContent in both forms (SSE through the SDK, the JSON array by hand),
// a two-turn function-calling loop with thinking, and what the scripted upstream received each time.
import { GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';
import type { ReceivedRequest } from '../../support/scripted-upstream/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let h: Harness;
let genai: GoogleGenAI;

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

const generations = (): ReceivedRequest[] => h.upstream.received.filter((r) => !/count_tokens|input_tokens/.test(r.path));
const last = (): ReceivedRequest => generations()[generations().length - 1]!;

const WEATHER = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

async function collect(stream: AsyncGenerator<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const out: GenerateContentResponse[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

for (const upstream of ['messages', 'responses'] as const) {
  const model = MODELS[upstream].alias;
  describe(`Gemini door → ${upstream} upstream`, () => {
    it('generateContent: text, system instruction, sampling, usage, finish', async () => {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello from upstream.' }], usage: { input: 12, output: 5 } });
      const res = await genai.models.generateContent({
        model,
        contents: 'Say hello.',
        config: { systemInstruction: 'Be brief.', maxOutputTokens: 200, temperature: 0.3, stopSequences: ['END'] },
      });
      expect(res.text).toBe('Hello from upstream.');
      expect(res.candidates?.[0]?.finishReason).toBe('STOP');
      expect(res.candidates?.[0]?.content?.role).toBe('model');
      expect(res.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 });
      expect(res.modelVersion).toBe(model);
      expect(res.responseId).toMatch(/^gen_/);
      const sent = last();
      expect(sent.protocol).toBe(upstream);
      expect(sent.body.model).toBe(MODELS[upstream].upstream);
      if (upstream === 'messages') {
        expect(sent.body.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
        expect(sent.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }]);
        expect(sent.body).toMatchObject({ max_tokens: 200, temperature: 0.3, stop_sequences: ['END'] });
      } else {
        expect(sent.body.instructions).toBe('Be brief.');
        expect(sent.body).toMatchObject({ max_output_tokens: 200, temperature: 0.3 });
      }
    });

    it('streamGenerateContent (alt=sse through the SDK): text chunks, then finish and usage', async () => {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'One two three four five six.' }], usage: { input: 9, output: 6 } });
      const chunks = await collect(await genai.models.generateContentStream({ model, contents: 'Count.' }));
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.map((c) => c.text ?? '').join('')).toBe('One two three four five six.');
      const final = chunks[chunks.length - 1]!;
      expect(final.candidates?.[0]?.finishReason).toBe('STOP');
      expect(final.usageMetadata).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 6, totalTokenCount: 15 });
      expect(last().stream).toBe(true);
    });

    it('streamGenerateContent without alt=sse: one JSON array of the same chunks', async () => {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Array form answer.' }], usage: { input: 4, output: 3 } });
      const res = await fetch(`${h.url}/v1beta/models/${model}:streamGenerateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'caller-key' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Answer.' }] }] }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const chunks = JSON.parse(await res.text()) as Json[];
      expect(Array.isArray(chunks)).toBe(true);
      expect(chunks.map((c) => c.candidates[0].content.parts.map((p: Json) => p.text).join('')).join('')).toBe('Array form answer.');
      expect(chunks[chunks.length - 1]!.candidates[0].finishReason).toBe('STOP');
      expect(chunks[chunks.length - 1]!.usageMetadata.totalTokenCount).toBe(7);
    });

    for (const stream of [false, true]) {
      it(`two-turn function calling with thinking: the reasoning state comes back byte-exact (${stream ? 'streamed' : 'not streamed'})`, async () => {
        const opaque = upstream === 'messages' ? 'EqQBCkYIBxgCKkDsig+/native==' : 'gAAAAB-encrypted-reasoning-state';
        h.upstream.enqueue({
          kind: 'reply',
          blocks: [
            { type: 'reasoning', text: 'The user wants weather; call the tool.', opaque },
            { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Paris"}' },
          ],
          usage: { input: 30, output: 20, reasoning: 12 },
        });
        const config = { tools: [{ functionDeclarations: [WEATHER] }], thinkingConfig: { includeThoughts: true, thinkingBudget: 4096 }, maxOutputTokens: 8000 };
        const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
        // Anthropic reports no separate thinking count; OpenAI does.
        const expectedUsage =
          upstream === 'messages'
            ? { promptTokenCount: 30, candidatesTokenCount: 20, totalTokenCount: 50 }
            : { promptTokenCount: 30, candidatesTokenCount: 8, thoughtsTokenCount: 12, totalTokenCount: 50 };
        let first: GenerateContentResponse;
        if (stream) {
          const chunks = await collect(await genai.models.generateContentStream({ model, contents, config }));
          const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
          first = { candidates: [{ content: { role: 'model', parts } }] } as GenerateContentResponse;
          expect(chunks[chunks.length - 1]!.usageMetadata).toMatchObject(expectedUsage);
        } else {
          first = await genai.models.generateContent({ model, contents, config });
          expect(first.usageMetadata).toMatchObject(expectedUsage);
        }
        const parts = first.candidates![0]!.content!.parts!.filter((p) => p.text !== '' || p.thoughtSignature !== undefined);
        expect(parts.filter((p) => p.thought).map((p) => p.text).join('')).toBe('The user wants weather; call the tool.');
        const call = parts.find((p) => p.functionCall)!;
        expect(call.functionCall).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
        expect(call.functionCall!.id).toBeTruthy();
        expect(call.thoughtSignature).toBeTruthy();
        const sent1 = last().body;
        if (upstream === 'messages') {
          expect(sent1.thinking).toMatchObject({ type: 'enabled', budget_tokens: 4096 });
          expect(sent1.tools[0]).toMatchObject({ name: 'get_weather', input_schema: WEATHER.parametersJsonSchema });
        } else {
          expect(sent1.tools[0]).toMatchObject({ type: 'function', name: 'get_weather', parameters: WEATHER.parametersJsonSchema });
        }

        // What Gemini CLI sends back: the call part with its signature (thought parts dropped), then the result.
        h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Paris: 21C and sunny.' }] });
        const second = await genai.models.generateContent({
          model,
          config,
          contents: [
            ...contents,
            { role: 'model', parts: [{ functionCall: call.functionCall, thoughtSignature: call.thoughtSignature }] },
            { role: 'user', parts: [{ functionResponse: { id: call.functionCall!.id, name: 'get_weather', response: { output: '21C, sunny' } } }] },
          ],
        });
        expect(second.text).toBe('Paris: 21C and sunny.');
        const sent2 = last().body;
        if (upstream === 'messages') {
          const assistant = sent2.messages[1];
          expect(assistant.role).toBe('assistant');
          expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'The user wants weather; call the tool.', signature: opaque });
          expect(assistant.content[1]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
          const result = sent2.messages[2].content[0];
          expect(result).toMatchObject({ type: 'tool_result', tool_use_id: assistant.content[1].id });
          expect(JSON.stringify(result.content)).toContain('21C, sunny');
        } else {
          const reasoning = sent2.input.find((i: Json) => i.type === 'reasoning');
          expect(reasoning.encrypted_content).toBe(opaque);
          const fc = sent2.input.find((i: Json) => i.type === 'function_call');
          expect(fc).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
          expect(sent2.input.find((i: Json) => i.type === 'function_call_output')).toMatchObject({ call_id: fc.call_id, output: '21C, sunny' });
        }
      });
    }
  });
}
