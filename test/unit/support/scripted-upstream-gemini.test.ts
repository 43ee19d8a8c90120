// The scripted upstream's Gemini side, proven with Google's own client (@google/genai) before anything
// else trusts it: generate, stream, function calling with thought signatures over two turns, parallel
// calls, safety finishes, prompt blocks, errors with RetryInfo, countTokens — and the Gemini 3 refusal
// of a history that drops or alters a signature.
import { ApiError, FinishReason, GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';

let upstream: ScriptedUpstream;
let ai: GoogleGenAI;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  ai = new GoogleGenAI({ apiKey: 'gemini-test-key', httpOptions: { baseUrl: upstream.url } });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.received.length = 0;
});

const MODEL = 'gemini-3-pro-preview';
const weather = { functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] };

/** generateContentStream folded by hand: every chunk's parts in order, the last finish and usage. */
async function streamed(contents: Content[], config: Record<string, unknown> = {}): Promise<{ parts: NonNullable<Content['parts']>; finish?: string; usage?: GenerateContentResponse['usageMetadata']; chunks: number }> {
  const stream = await ai.models.generateContentStream({ model: MODEL, contents, config });
  const parts: NonNullable<Content['parts']> = [];
  let finish: string | undefined;
  let usage: GenerateContentResponse['usageMetadata'];
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    const c = chunk.candidates?.[0];
    for (const p of c?.content?.parts ?? []) parts.push(p);
    if (c?.finishReason) finish = c.finishReason;
    if (chunk.usageMetadata) usage = chunk.usageMetadata;
  }
  return { parts, finish, usage, chunks };
}

describe('Gemini via @google/genai', () => {
  it('generateContent: text, usage, the key header and the path', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello from Gemini.' }], usage: { input: 12, output: 5 } });
    const res = await ai.models.generateContent({ model: MODEL, contents: 'Hi' });
    expect(res.text).toBe('Hello from Gemini.');
    expect(res.candidates?.[0]?.finishReason).toBe(FinishReason.STOP);
    expect(res.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 });
    expect(res.responseId).toBeTruthy();
    const rec = upstream.received[0]!;
    expect(rec.protocol).toBe('gemini');
    expect(rec.path).toBe(`/v1beta/models/${MODEL}:generateContent`);
    expect(rec.headers['x-goog-api-key']).toBe('gemini-test-key');
    expect(rec.stream).toBe(false);
    expect(rec.body.contents).toEqual([{ role: 'user', parts: [{ text: 'Hi' }] }]);
  });

  it('generateContentStream: SSE chunks concatenate to the text; usage and finish on the last', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'A streamed answer from the fake.' }], usage: { input: 9, output: 7, reasoning: 3, cacheRead: 4 } });
    const r = await streamed([{ role: 'user', parts: [{ text: 'Stream please' }] }]);
    expect(r.chunks).toBeGreaterThan(2);
    expect(r.parts.map((p) => p.text).join('')).toBe('A streamed answer from the fake.');
    expect(r.finish).toBe('STOP');
    expect(r.usage).toMatchObject({ promptTokenCount: 13, candidatesTokenCount: 4, thoughtsTokenCount: 3, cachedContentTokenCount: 4 });
    const rec = upstream.received[0]!;
    expect(rec.url).toBe(`/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
    expect(rec.stream).toBe(true);
  });

  for (const mode of ['generate', 'stream'] as const) {
    it(`function calling with thoughts over two turns (${mode}): signatures come back and are checked`, async () => {
      upstream.enqueue({
        kind: 'reply',
        blocks: [
          { type: 'reasoning', text: 'I should check the weather in both cities.', opaque: 'c2lnLW9uZQ==' },
          { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
        geminiNoCallIds: true,
      });
      const user: Content = { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] };
      const config = { tools: [weather], thinkingConfig: { includeThoughts: true } };
      let modelParts: NonNullable<Content['parts']>;
      if (mode === 'generate') {
        const res = await ai.models.generateContent({ model: MODEL, contents: [user], config });
        modelParts = res.candidates![0]!.content!.parts!;
        expect(res.functionCalls?.map((c) => c.args)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
      } else {
        modelParts = (await streamed([user], config)).parts;
      }
      const thoughts = modelParts.filter((p) => p.thought);
      expect(thoughts.map((p) => p.text).join('')).toBe('I should check the weather in both cities.');
      const calls = modelParts.filter((p) => p.functionCall);
      expect(calls).toHaveLength(2);
      expect(calls[0]!.thoughtSignature).toBe('c2lnLW9uZQ=='); // the first call of the step is signed
      expect(calls[1]!.thoughtSignature).toBeUndefined();
      expect(calls.map((p) => p.functionCall!.id)).toEqual([undefined, undefined]);

      // Turn two, with the model turn exactly as received: accepted.
      const answers: Content = {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: 'Paris: sunny' } } },
          { functionResponse: { name: 'get_weather', response: { output: 'Rome: rain' } } },
        ],
      };
      upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Sunny in Paris, rain in Rome.' }] });
      const history = [user, { role: 'model', parts: modelParts }, answers];
      const second = await ai.models.generateContent({ model: MODEL, contents: history, config });
      expect(second.text).toBe('Sunny in Paris, rain in Rome.');
      const sent = upstream.received[upstream.received.length - 1]!.body;
      expect(sent.contents[1].parts.find((p: { functionCall?: unknown }) => p.functionCall).thoughtSignature).toBe('c2lnLW9uZQ==');

      // Without the signature, or with it altered: Gemini's 400.
      const stripped = modelParts.map((p) => ({ ...p, thoughtSignature: undefined }));
      const missing = await ai.models.generateContent({ model: MODEL, contents: [user, { role: 'model', parts: stripped }, answers], config }).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(ApiError);
      expect((missing as ApiError).status).toBe(400);
      expect((missing as ApiError).message).toMatch(/missing a `thought_signature`/);
      const altered = modelParts.map((p) => (p.thoughtSignature ? { ...p, thoughtSignature: p.thoughtSignature.replace('c2', 'c3') } : p));
      const bad = await ai.models.generateContent({ model: MODEL, contents: [user, { role: 'model', parts: altered }, answers], config }).catch((e: unknown) => e);
      expect((bad as ApiError).status).toBe(400);
      expect((bad as ApiError).message).toMatch(/Thought signature is not valid/);
      // One result for two calls: refused too.
      const short = await ai.models.generateContent({ model: MODEL, contents: [user, { role: 'model', parts: modelParts }, { role: 'user', parts: [answers.parts![0]!] }], config }).catch((e: unknown) => e);
      expect((short as ApiError).message).toMatch(/number of function response parts/);
    });
  }

  it('Gemini 3: an unsigned call in the current turn (another model\'s history) is refused unless it carries Google\'s stand-in', async () => {
    const history = (signature?: string): Content[] => [
      { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, ...(signature ? { thoughtSignature: signature } : {}) }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '-3C' } } }] },
    ];
    const refused = (await ai.models.generateContent({ model: MODEL, contents: history(), config: { tools: [weather] } }).catch((e: unknown) => e)) as ApiError;
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/missing a .{0,2}thought_signature/);
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Cold.' }] });
    expect((await ai.models.generateContent({ model: MODEL, contents: history('skip_thought_signature_validator'), config: { tools: [weather] } })).text).toBe('Cold.');
    // Gemini 2.5 does not check.
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Cold.' }] });
    expect((await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: history(), config: { tools: [weather] } })).text).toBe('Cold.');
  });

  it('calls with ids keep them', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'tool-call', id: 'fc-1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const res = await ai.models.generateContent({ model: MODEL, contents: 'Oslo?', config: { tools: [weather] } });
    expect(res.functionCalls).toEqual([{ id: 'fc-1', name: 'get_weather', args: { city: 'Oslo' } }]);
  });

  it('a reasoning-only answer signs its thought part', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'reasoning', text: 'Just thinking.', opaque: 'sig-thought' }] });
    const r = await streamed([{ role: 'user', parts: [{ text: 'Think' }] }]);
    const signed = r.parts.filter((p) => p.thoughtSignature);
    expect(signed).toEqual([expect.objectContaining({ thought: true, thoughtSignature: 'sig-thought' })]);
    expect(r.parts.map((p) => p.text).join('')).toBe('Just thinking.');
  });

  it('safety finishes, and a blocked prompt', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [], stop: 'refusal' });
    const res = await ai.models.generateContent({ model: MODEL, contents: 'Something unsafe' });
    expect(res.candidates?.[0]?.finishReason).toBe(FinishReason.SAFETY);
    expect(res.candidates?.[0]?.safetyRatings?.[0]?.blocked).toBe(true);
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'To be or' }], geminiFinish: 'RECITATION' });
    expect((await streamed([{ role: 'user', parts: [{ text: 'Quote' }] }])).finish).toBe('RECITATION');
    upstream.enqueue({ kind: 'reply', blocks: [], geminiPromptBlock: 'PROHIBITED_CONTENT' });
    const blocked = await ai.models.generateContent({ model: MODEL, contents: 'Blocked' });
    expect(blocked.promptFeedback?.blockReason).toBe('PROHIBITED_CONTENT');
    expect(blocked.candidates).toBeUndefined();
  });

  it('errors: RESOURCE_EXHAUSTED with RetryInfo, a mid-stream error, no key', async () => {
    upstream.enqueue({ kind: 'http-error', status: 429, message: 'Resource has been exhausted (e.g. check quota).', retryAfter: '13' });
    const err = (await ai.models.generateContent({ model: MODEL, contents: 'Hi' }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(429);
    const body = JSON.parse(err.message) as { error: { status: string; details: { '@type': string; retryDelay?: string }[] } };
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.details.find((d) => d['@type'].endsWith('RetryInfo'))?.retryDelay).toBe('13s');

    upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }], message: 'the model exploded' });
    const mid = await streamed([{ role: 'user', parts: [{ text: 'Hi' }] }]).catch((e: unknown) => e);
    expect(String(mid)).toMatch(/exploded/);

    const anonymous = new GoogleGenAI({ apiKey: '', httpOptions: { baseUrl: upstream.url } });
    const noKey = (await anonymous.models.generateContent({ model: MODEL, contents: 'Hi' }).catch((e: unknown) => e)) as ApiError;
    expect(noKey.status).toBe(403);
  });

  it('schemas outside Gemini\'s JSON Schema subset are refused', async () => {
    const loose = { functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object', properties: { a: { type: 'string', minLength: 1 } } } }] };
    const err = (await ai.models.generateContent({ model: MODEL, contents: 'Hi', config: { tools: [loose] } }).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/Unknown name .{0,2}minLength/);
  });

  it('countTokens', async () => {
    const res = await ai.models.countTokens({ model: MODEL, contents: 'How many tokens is this?' });
    expect(res.totalTokens).toBeGreaterThan(0);
    expect(upstream.received[0]!.path).toBe(`/v1beta/models/${MODEL}:countTokens`);
  });
});
