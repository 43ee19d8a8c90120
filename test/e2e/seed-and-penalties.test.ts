// Seed and repetition penalties across doors: from the Chat Completions door (`seed`,
// `presence_penalty`, `frequency_penalty`, the OpenAI SDK as client) and the Gemini door
// (`generationConfig.seed`, `presencePenalty`, `frequencyPenalty`) they reach a Chat or a Gemini
// upstream in its own spelling; toward Messages and Responses, which have none, they are dropped
// with a warning naming each field, never sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../support/gateway-harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const lastBody = (): Json => h.upstream.received[h.upstream.received.length - 1]!.body as Json;

/** What the upstream must have received, in its own protocol's spelling. */
function expectSent(lane: UpstreamProtocol, body: Json, warnings: string): void {
  switch (lane) {
    case 'chat':
      expect(body).toMatchObject({ seed: 42, presence_penalty: 0.5, frequency_penalty: -0.25 });
      break;
    case 'gemini':
      expect(body.generationConfig).toMatchObject({ seed: 42, presencePenalty: 0.5, frequencyPenalty: -0.25 });
      break;
    default:
      expect(JSON.stringify(body)).not.toMatch(/seed|penalty|Penalty/);
      for (const field of ['seed', 'presence_penalty', 'frequency_penalty']) expect(warnings).toContain(field);
  }
}

const LANES: UpstreamProtocol[] = ['chat', 'gemini', 'messages', 'responses'];

describe('seed and penalties', () => {
  it.each(LANES)('Chat Completions door → %s upstream', async (lane) => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const { response } = await h.openai.chat.completions
      .create({ model: MODELS[lane].alias, messages: [{ role: 'user', content: 'hi' }], seed: 42, presence_penalty: 0.5, frequency_penalty: -0.25 })
      .withResponse();
    const warnings = response.headers.get('x-switchyard-warnings') ?? '';
    expectSent(lane, lastBody(), warnings);
    // Mapped fields are not reported as dropped on the lanes that take them.
    if (lane === 'chat' || lane === 'gemini') expect(warnings).not.toMatch(/seed|penalty/);
  });

  it.each(LANES)('Gemini door → %s upstream', async (lane) => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const res = await fetch(`${h.url}/v1beta/models/${MODELS[lane].alias}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'caller-key' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { seed: 42, presencePenalty: 0.5, frequencyPenalty: -0.25 } }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const warnings = res.headers.get('x-switchyard-warnings') ?? '';
    expectSent(lane, lastBody(), warnings);
    if (lane === 'chat') expect(warnings).not.toMatch(/seed|penalty|generationConfig/);
  });
});
