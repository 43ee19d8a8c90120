// The Azure fake (and the managed-identity fake) proven with the vendors' own clients first: the
// `openai` package's AzureOpenAI (deployment URLs, api-version, `api-key`, an Entra token provider from
// @azure/identity's DefaultAzureCredential reaching the identity fake as on App Service) and the plain
// OpenAI client on the v1 API. Only then is the gateway pointed at them (azure.test.ts).
import { DefaultAzureCredential, getBearerTokenProvider } from '@azure/identity';
import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAzureFake, type AzureFake } from '../../support/azure-fake.js';
import { startAzureIdentityFake, type AzureIdentityFake } from '../../support/azure-identity-fake.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';

describe('Azure OpenAI fake, proven with AzureOpenAI and @azure/identity', () => {
  let upstream: ScriptedUpstream;
  let identity: AzureIdentityFake;
  let azure: AzureFake;
  const saved = { endpoint: process.env.IDENTITY_ENDPOINT, header: process.env.IDENTITY_HEADER };

  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    identity = await startAzureIdentityFake();
    azure = await startAzureFake({ apiKey: 'azure-key-1', deployments: { 'gpt-4o-prod': 'gpt-4o-2024-08-06' }, entraValid: (t) => identity.valid(t), upstreamUrl: upstream.url });
    process.env.IDENTITY_ENDPOINT = identity.endpoint;
    process.env.IDENTITY_HEADER = identity.header;
  });
  afterAll(async () => {
    for (const [k, v] of [['IDENTITY_ENDPOINT', saved.endpoint], ['IDENTITY_HEADER', saved.header]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await azure?.close();
    await identity?.close();
    await upstream?.close();
  });

  const keyClient = () => new AzureOpenAI({ endpoint: azure.endpoint, apiKey: 'azure-key-1', apiVersion: '2024-10-21', deployment: 'gpt-4o-prod', maxRetries: 0 });

  it('chat on the deployment URL with api-key and api-version: create and stream, with Azure annotations', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hi from Azure.' }] });
    const done = await keyClient().chat.completions.create({ model: 'ignored', messages: [{ role: 'user', content: 'Hi' }] });
    expect(done.choices[0]!.message.content).toBe('Hi from Azure.');
    expect(done).toHaveProperty('prompt_filter_results');
    expect(azure.received.at(-1)).toMatchObject({ api: 'deployment', deployment: 'gpt-4o-prod', apiVersion: '2024-10-21', auth: 'api-key' });
    expect(upstream.received.at(-1)!.body.model).toBe('gpt-4o-2024-08-06');

    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Streamed from Azure.' }] });
    const stream = await keyClient().chat.completions.create({ model: 'ignored', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('Streamed from Azure.');
    expect(finish).toBe('stop');
  });

  it('Responses on /openai/responses?api-version= with the deployment as model, and on the v1 API with the plain client', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Resource URL.' }] });
    const az = new AzureOpenAI({ endpoint: azure.endpoint, apiKey: 'azure-key-1', apiVersion: '2025-04-01-preview', maxRetries: 0 });
    const r1 = await az.responses.create({ model: 'gpt-4o-prod', input: 'Hi' });
    expect(r1.output_text).toBe('Resource URL.');
    expect(azure.received.at(-1)).toMatchObject({ api: 'resource', path: '/openai/responses', apiVersion: '2025-04-01-preview' });

    const v1 = new OpenAI({ baseURL: azure.endpoint + '/openai/v1', apiKey: 'azure-key-1', maxRetries: 0 });
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'v1 streamed.' }] });
    const stream = v1.responses.stream({ model: 'gpt-4o-prod', input: 'Hi' });
    expect((await stream.finalResponse()).output_text).toBe('v1 streamed.');
    expect(azure.received.at(-1)).toMatchObject({ api: 'v1', path: '/openai/v1/responses', apiVersion: null, auth: 'bearer' });
  });

  it('Entra: a token from DefaultAzureCredential (managed identity) as the bearer', async () => {
    const az = new AzureOpenAI({
      endpoint: azure.endpoint,
      apiVersion: '2024-10-21',
      deployment: 'gpt-4o-prod',
      azureADTokenProvider: getBearerTokenProvider(new DefaultAzureCredential(), 'https://cognitiveservices.azure.com/.default'),
      maxRetries: 0,
    });
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Entra ok.' }] });
    const done = await az.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'Hi' }] });
    expect(done.choices[0]!.message.content).toBe('Entra ok.');
    expect(azure.received.at(-1)).toMatchObject({ auth: 'bearer' });
    expect(azure.received.at(-1)!.refused).toBeUndefined();
    expect(identity.issued).toBe(1);
    expect(identity.lastResource).toBe('https://cognitiveservices.azure.com');
  });

  it('errors: the content filter 400, a wrong key 401, a deployment URL without api-version 404, an unknown deployment', async () => {
    azure.enqueueContentFilter({ violence: { filtered: true, severity: 'high' } });
    const filtered = await keyClient().chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(filtered).toBeInstanceOf(OpenAI.BadRequestError);
    expect(filtered).toMatchObject({ status: 400, code: 'content_filter', error: { innererror: { code: 'ResponsibleAIPolicyViolation' } } });

    const wrong = new AzureOpenAI({ endpoint: azure.endpoint, apiKey: 'wrong', apiVersion: '2024-10-21', deployment: 'gpt-4o-prod', maxRetries: 0 });
    expect(await wrong.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e)).toMatchObject({ status: 401 });

    const noVersion = await fetch(azure.endpoint + '/openai/deployments/gpt-4o-prod/chat/completions', { method: 'POST', headers: { 'api-key': 'azure-key-1', 'content-type': 'application/json' }, body: '{"messages":[]}' });
    expect(noVersion.status).toBe(404);

    const unknown = new AzureOpenAI({ endpoint: azure.endpoint, apiKey: 'azure-key-1', apiVersion: '2024-10-21', deployment: 'nope', maxRetries: 0 });
    expect(await unknown.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e)).toMatchObject({ status: 404, code: 'DeploymentNotFound' });
  });
});
