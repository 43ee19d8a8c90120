// Gemini on Vertex AI: protocol `gemini` with `platform: vertex` — the same driver, addressed as
// `/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent|:streamGenerateContent?alt=sse|
// :countTokens`, with a Google OAuth token (google-auth-library against the metadata fake, as on GKE) and
// no API key. The scripted Gemini upstream answers on those paths (and checks the thought signatures);
// the test checks every request carried a token the metadata fake issued.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/gateway-harness.js';
import { startGoogleMetadataFake, type GoogleMetadataFake } from '../../support/google-metadata-fake.js';

let h: Harness;
let metadata: GoogleMetadataFake;
const saved = { host: process.env.GCE_METADATA_HOST, sdk: process.env.CLOUDSDK_CONFIG };
const BASE = '/v1/projects/proj-1/locations/us-central1/publishers/google/models/gemini-2.5-pro';

beforeAll(async () => {
  metadata = await startGoogleMetadataFake();
  process.env.GCE_METADATA_HOST = metadata.host;
  process.env.CLOUDSDK_CONFIG = mkdtempSync(join(tmpdir(), 'no-gcloud-'));
  h = await startHarness({
    config: (url) => ({
      providers: { 'vertex-gemini': { protocol: 'gemini', platform: 'vertex', project: 'proj-1', region: 'us-central1', base_url: url + '/v1', retry: { attempts: 1 } } },
      models: { 'gemini-on-vertex': { provider: 'vertex-gemini', model: 'gemini-2.5-pro' } },
    }),
  });
});
afterAll(async () => {
  await h?.close();
  await metadata?.close();
  if (saved.host === undefined) delete process.env.GCE_METADATA_HOST;
  else process.env.GCE_METADATA_HOST = saved.host;
  if (saved.sdk === undefined) delete process.env.CLOUDSDK_CONFIG;
  else process.env.CLOUDSDK_CONFIG = saved.sdk;
});

function expectVertexAuth(): void {
  for (const r of h.upstream.received) {
    const auth = String(r.headers.authorization ?? '');
    expect(auth.startsWith('Bearer ')).toBe(true);
    expect(metadata.valid(auth.slice(7))).toBe(true);
    expect(r.headers['x-goog-api-key']).toBeUndefined();
  }
}

describe('Gemini on Vertex AI', () => {
  it('a two-turn tool loop with thinking: Vertex paths, OAuth token, signatures back unchanged', async () => {
    h.upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'Check the weather.', opaque: 'vertex-signature-1' },
        { type: 'tool-call', name: 'get_weather', arguments: '{"city":"Lyon"}' },
      ],
      geminiNoCallIds: true, // Vertex gives calls no ids
    });
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'gemini-on-vertex',
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'Lyon?' }],
    };
    const first = await h.anthropic.messages.stream(params).finalMessage();
    const call = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    expect(call.input).toEqual({ city: 'Lyon' });
    expect(h.upstream.received[0]!.url).toBe(`${BASE}:streamGenerateContent?alt=sse`);
    expect(h.upstream.received[0]!.body.generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 1024 });

    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Mild in Lyon.' }] });
    const second = await h.anthropic.messages.create({
      ...params,
      messages: [...params.messages, { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18C' }] }],
    });
    expect(second.content).toEqual([expect.objectContaining({ text: 'Mild in Lyon.' })]);
    const sent = h.upstream.received[1]!.body;
    expect(sent.contents[1].parts).toEqual([
      { text: 'Check the weather.', thought: true },
      { functionCall: { name: 'get_weather', args: { city: 'Lyon' } }, thoughtSignature: 'vertex-signature-1' },
    ]);
    expect(sent.contents[2].parts).toEqual([{ functionResponse: { name: 'get_weather', response: { output: '18C' } } }]);
    expect(h.upstream.received[1]!.path).toBe(`${BASE}:generateContent`);
    expectVertexAuth();
  });

  it('count_tokens through :countTokens on Vertex', async () => {
    h.upstream.received.length = 0;
    const counted = await h.openai.responses.inputTokens.count({ model: 'gemini-on-vertex', input: 'How many tokens?' });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(h.upstream.received.map((r) => r.path)).toEqual([`${BASE}:countTokens`]);
    // Vertex takes the request's fields at the top level (no generateContentRequest, no model).
    expect(h.upstream.received[0]!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'How many tokens?' }] }] });
    expectVertexAuth();
  });

  it('RESOURCE_EXHAUSTED from Vertex is a 429 in the caller\'s envelope', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 429, message: 'Resource exhausted. Please try again later.' });
    const err = await h.openai.responses.create({ model: 'gemini-on-vertex', input: 'x', store: false }).then(
      () => undefined,
      (e: unknown) => e as { status: number; error: Record<string, unknown> },
    );
    expect(err?.status).toBe(429);
    expect(err?.error).toMatchObject({ code: 'rate_limit_exceeded' });
  });
});
