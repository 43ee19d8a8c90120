// GPT models on Azure OpenAI through the gateway, beyond the conformance matrix: what Azure receives on
// each URL style, the content filter on both doors (the 400 refusal, and a filtered answer from Chat and
// from Responses, streamed and not), Entra tokens (expiry under traffic with one refresh, a failing
// identity endpoint: azure-entra.test.ts), and a wrong key (mapped, circuit opens, the alias falls back).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS } from '../../support/gateway-harness.js';
import { AZURE_KEY, CHAT_API_VERSION, RESPONSES_API_VERSION, startAzureHarness, type AzureHarness } from '../../support/azure-harness.js';

describe('Azure OpenAI platform', () => {
  let h: AzureHarness;
  beforeAll(async () => {
    h = await startAzureHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('each URL style as Azure expects it: v1 path, deployment URL with api-version, the resource Responses URL with the deployment as model; the key as api-key', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'a' }] }, { kind: 'reply', blocks: [{ type: 'text', text: 'b' }] }, { kind: 'reply', blocks: [{ type: 'text', text: 'c' }] });
    await h.anthropic.messages.create({ model: MODELS.responses.alias, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
    const v1 = h.azure.received.at(-1)!;
    expect(v1).toMatchObject({ path: '/openai/v1/responses', apiVersion: null, api: 'v1', deployment: MODELS.responses.upstream });
    expect(v1.headers['api-key']).toBe(AZURE_KEY);
    expect(v1.headers.authorization).toBeUndefined();

    await h.openai.responses.create({ model: MODELS.chat.alias, input: 'Hi', store: false });
    expect(h.azure.received.at(-1)).toMatchObject({ path: `/openai/deployments/${MODELS.chat.upstream}/chat/completions`, apiVersion: CHAT_API_VERSION, auth: 'api-key' });

    await h.openai.responses.create({ model: 'azure-resource', input: 'Hi', store: false });
    const resource = h.azure.received.at(-1)!;
    expect(resource).toMatchObject({ path: '/openai/responses', apiVersion: RESPONSES_API_VERSION, api: 'resource' });
    expect(resource.body!.model).toBe(MODELS.responses.upstream);
  });

  it('count_tokens: input_tokens at the same address (v1 and the resource URL with the deployment as model)', async () => {
    for (const [alias, path, api] of [
      [MODELS.responses.alias, '/openai/v1/responses/input_tokens', 'v1'],
      ['azure-resource', '/openai/responses/input_tokens', 'resource'],
    ] as const) {
      const res = await fetch(h.url + '/v1/messages/count_tokens', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'caller-key', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: alias, messages: [{ role: 'user', content: 'Count these words please' }] }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
      const rec = h.azure.received.at(-1)!;
      expect(rec).toMatchObject({ path, api, deployment: MODELS.responses.upstream, auth: 'api-key' });
      expect(rec.refused).toBeUndefined();
    }
  });

  it("the content filter's 400 is a clear invalid_request on both doors, naming the categories", async () => {
    h.azure.enqueueContentFilter({ violence: { filtered: true, severity: 'high' }, jailbreak: { filtered: true, detected: true } });
    const m = await h.anthropic.messages.create({ model: MODELS.chat.alias, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(m).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error' } } });
    const message = (m as { error: { error: { message: string } } }).error.error.message;
    expect(message).toBe("Azure OpenAI's content filter refused the prompt: violence (severity high), jailbreak (detected)");

    h.azure.enqueueContentFilter({ self_harm: { filtered: true, severity: 'medium' } });
    const r = await h.openai.responses.create({ model: MODELS.responses.alias, input: 'Hi', stream: true }).catch((e: unknown) => e);
    expect(r).toMatchObject({ status: 400, code: 'content_filter', param: 'prompt', error: { type: 'invalid_request_error', message: expect.stringContaining('self_harm (severity medium)') } });
  });

  for (const stream of [false, true]) {
    it(`a filtered answer (Chat finish_reason content_filter, Responses incomplete content_filter) on both doors, ${stream ? 'streamed' : 'not streamed'}`, async () => {
      for (const alias of [MODELS.chat.alias, MODELS.responses.alias]) {
        h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'I cannot' }], stop: 'refusal' });
        const msg = stream
          ? await h.anthropic.messages.stream({ model: alias, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage()
          : await h.anthropic.messages.create({ model: alias, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
        expect(msg.stop_reason).toBe('refusal');

        h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'I cannot' }], stop: 'refusal' });
        const res = stream
          ? await h.openai.responses.stream({ model: alias, input: 'Hi', store: false }).finalResponse()
          : await h.openai.responses.create({ model: alias, input: 'Hi', store: false });
        expect(res.status).toBe('incomplete');
        expect(res.incomplete_details).toEqual({ reason: 'content_filter' });
      }
    });
  }

  it('a wrong key: 401 mapped to the deployment (502 if alone), the circuit opens, the alias falls back', async () => {
    const before = h.azure.received.length;
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'From the fallback.' }] });
    const first = await h.openai.responses.create({ model: 'gpt-fallback', input: 'Hi', store: false });
    expect(first.output_text).toBe('From the fallback.');
    expect(h.azure.received.slice(before)).toMatchObject([{ refused: 401, auth: 'api-key' }]);
    expect(h.upstream.received.at(-1)!.body.model).toBe('gpt-direct-1');
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Again.' }] });
    const second = await h.anthropic.messages.create({ model: 'gpt-fallback', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
    expect(second.content).toEqual([expect.objectContaining({ text: 'Again.' })]);
    expect(h.azure.received.length).toBe(before + 1); // circuit open: Azure not asked again
    const metrics = await (await fetch(h.url + '/metrics')).text();
    expect(metrics).toMatch(/switchyard_deployment_circuit_state\{provider="azure-wrong-key",model="chat-upstream-1"\} [12]/);
    expect(metrics).not.toContain('not-the-key');
    const models = await (await fetch(h.url + '/v1/models', { headers: { authorization: 'Bearer caller-key' } })).text();
    expect(models).not.toContain(AZURE_KEY);
  });

  it('Entra: the managed identity token as the bearer, no api-key', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Entra.' }] });
    const res = await h.openai.responses.create({ model: 'azure-entra', input: 'Hi', store: false });
    expect(res.output_text).toBe('Entra.');
    const rec = h.azure.received.at(-1)!;
    expect(rec).toMatchObject({ auth: 'bearer', path: '/openai/v1/chat/completions', deployment: 'gpt-entra' });
    expect(rec.headers['api-key']).toBeUndefined();
    expect(h.identity.lastResource).toBe('https://cognitiveservices.azure.com');
  });
});
