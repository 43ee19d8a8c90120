// The Vertex fake and the metadata fake proven with Google's and Anthropic's own clients first:
// @anthropic-ai/vertex-sdk (AnthropicVertex) with google-auth-library's Application Default Credentials
// reaching the metadata fake through GCE_METADATA_HOST, exactly as on GKE. Only then is the gateway
// pointed at them (vertex.test.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { GoogleAuth } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleMetadataFake, type GoogleMetadataFake } from '../../support/google-metadata-fake.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { startVertexFake, type VertexFake } from '../../support/vertex-fake.js';

describe('Vertex fake, proven with @anthropic-ai/vertex-sdk and google-auth-library', () => {
  let upstream: ScriptedUpstream;
  let metadata: GoogleMetadataFake;
  let vertex: VertexFake;
  let client: AnthropicVertex;
  const saved = { host: process.env.GCE_METADATA_HOST, sdk: process.env.CLOUDSDK_CONFIG };

  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    metadata = await startGoogleMetadataFake();
    vertex = await startVertexFake({ project: 'proj-1', metadata, upstreamUrl: upstream.url });
    // google-auth-library reads these itself: the metadata server, and no gcloud credentials file.
    process.env.GCE_METADATA_HOST = metadata.host;
    process.env.CLOUDSDK_CONFIG = mkdtempSync(join(tmpdir(), 'no-gcloud-'));
    client = new AnthropicVertex({
      baseURL: vertex.baseUrl,
      region: 'us-east5',
      projectId: 'proj-1',
      googleAuth: new GoogleAuth({ scopes: 'https://www.googleapis.com/auth/cloud-platform' }),
      maxRetries: 0,
    });
  });
  afterAll(async () => {
    process.env.GCE_METADATA_HOST = saved.host;
    if (saved.host === undefined) delete process.env.GCE_METADATA_HOST;
    process.env.CLOUDSDK_CONFIG = saved.sdk;
    if (saved.sdk === undefined) delete process.env.CLOUDSDK_CONFIG;
    await vertex?.close();
    await metadata?.close();
    await upstream?.close();
  });

  it('create: rawPredict on the publisher-model URL with a metadata-server token', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello from Vertex.' }] });
    const msg = await client.messages.create({ model: 'claude-sonnet-4-5@20250929', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    expect(msg.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello from Vertex.' })]);
    const rec = vertex.received.at(-1)!;
    expect(rec).toMatchObject({ method: 'rawPredict', project: 'proj-1', region: 'us-east5', model: 'claude-sonnet-4-5@20250929' });
    expect(rec.refused).toBeUndefined();
    expect(rec.body).not.toHaveProperty('model');
    expect(metadata.lastScopes).toContain('cloud-platform');
    expect(upstream.received.at(-1)!.body.model).toBe('claude-sonnet-4-5@20250929');
  });

  it('stream: streamRawPredict with stream true, Anthropic SSE relayed', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Streamed hello.' }] });
    const stream = client.messages.stream({ model: 'claude-sonnet-4-5@20250929', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'Streamed hello.' })]);
    expect(final.stop_reason).toBe('end_turn');
    expect(vertex.received.at(-1)).toMatchObject({ method: 'streamRawPredict', body: expect.objectContaining({ stream: true }) });
  });

  it('count tokens: the count-tokens publisher model', async () => {
    const count = await client.beta.messages.countTokens({ model: 'claude-sonnet-4-5@20250929', messages: [{ role: 'user', content: 'Count me' }] });
    expect(count.input_tokens).toBeGreaterThan(0);
    expect(vertex.received.at(-1)).toMatchObject({ model: 'count-tokens', method: 'rawPredict', body: expect.objectContaining({ model: 'claude-sonnet-4-5@20250929' }) });
  });

  it('errors: Google quota refusal (429 RESOURCE_EXHAUSTED), a bad token (401), an Anthropic-shaped model error', async () => {
    vertex.enqueueGoogleError({ status: 429, name: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model' });
    const quota = await client.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(quota).toMatchObject({ status: 429, error: { error: { status: 'RESOURCE_EXHAUSTED' } } });

    const stranger = new AnthropicVertex({ baseURL: vertex.baseUrl, region: 'us-east5', projectId: 'proj-1', accessToken: 'ya29.not-issued', maxRetries: 0, authClient: { getRequestHeaders: async () => new Headers({ authorization: 'Bearer ya29.not-issued' }) } as never });
    const denied = await stranger.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(denied).toMatchObject({ status: 401, error: { error: { status: 'UNAUTHENTICATED' } } });

    upstream.enqueue({ kind: 'http-error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
    const busy = await client.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(busy).toMatchObject({ status: 529, error: { type: 'error', error: { type: 'overloaded_error' } } });
  });
});
