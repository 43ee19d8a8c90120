// The scripted Bedrock is trusted only once Anthropic's own Bedrock client passes against it: SigV4
// signed by the SDK and verified by the fake, invoke, invoke-with-response-stream through AWS's
// event-stream framing, Bedrock's error shapes, an in-stream exception, and the API-key mode.
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBedrockUpstream, type BedrockUpstream } from '../../support/bedrock/server.js';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const KEY_ID = 'AKIAFAKEBEDROCK00001';
const SECRET = 'fake-secret-for-the-scripted-bedrock-0001';

describe('scripted Bedrock against @anthropic-ai/bedrock-sdk', () => {
  let bedrock: BedrockUpstream;
  let client: AnthropicBedrock;

  beforeAll(async () => {
    bedrock = await startBedrockUpstream({ region: 'us-west-2', credentials: { [KEY_ID]: { secretAccessKey: SECRET } }, apiKeys: ['bedrock-api-key-1'] });
    client = new AnthropicBedrock({ awsAccessKey: KEY_ID, awsSecretKey: SECRET, awsRegion: 'us-west-2', baseURL: bedrock.url, apiKey: null, maxRetries: 0 });
  });
  afterAll(async () => {
    await bedrock?.close();
  });

  it('create: signed invoke, the Messages answer', async () => {
    bedrock.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello from Bedrock.' }] });
    const msg = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    expect(msg.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello from Bedrock.' })]);
    expect(msg.stop_reason).toBe('end_turn');
    const seen = bedrock.received.at(-1)!;
    expect(seen).toMatchObject({ operation: 'invoke', modelId: MODEL, auth: 'sigv4', accessKeyId: KEY_ID });
    // The SDK leaves `:` as is (legal in a path segment); the signature covers it either way.
    expect(decodeURIComponent(seen.path)).toBe(`/model/${MODEL}/invoke`);
    expect(seen.body.model).toBeUndefined();
    expect(typeof seen.body.anthropic_version).toBe('string');
  });

  it('stream: event-stream chunks become the SDK events, thinking and tool use included', async () => {
    bedrock.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'Let me think.', opaque: 'sig-abc' },
        { type: 'tool-call', id: 'toolu_01Bedrock', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    });
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (ev) => types.push(ev.type));
    const msg = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(msg.content[0]).toMatchObject({ type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' });
    expect(msg.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_01Bedrock', name: 'get_weather', input: { city: 'Oslo' } });
    expect(msg.stop_reason).toBe('tool_use');
    expect(bedrock.received.at(-1)!.operation).toBe('invoke-with-response-stream');
    expect(bedrock.received.at(-1)!.body.stream).toBeUndefined();
  });

  it('HTTP error: ThrottlingException is a 429 the SDK reads', async () => {
    bedrock.enqueue({ kind: 'http-error', status: 429, message: 'Too many requests, please wait before trying again.' });
    const err = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnthropicBedrock.RateLimitError);
    expect((err as { status: number }).status).toBe(429);
  });

  it('in-stream exception: the SDK raises it after the first events', async () => {
    bedrock.enqueue({ kind: 'stream-exception', blocks: [{ type: 'text', text: 'partial' }], exception: 'throttlingException', message: 'Too many tokens, please wait.' });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    const texts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    const err = await stream.finalMessage().catch((e: unknown) => e);
    expect(String((err as Error).message)).toMatch(/throttlingException|Too many tokens/);
    expect(texts.join('')).toBe('partial');
  });

  it('a wrong secret is refused with Bedrock\'s 403, and nothing reaches the model', async () => {
    const before = bedrock.received.length;
    const wrong = new AnthropicBedrock({ awsAccessKey: KEY_ID, awsSecretKey: 'not-the-secret', awsRegion: 'us-west-2', baseURL: bedrock.url, apiKey: null, maxRetries: 0 });
    const err = await wrong.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect((err as { status: number }).status).toBe(403);
    expect(String((err as Error).message)).toMatch(/signature we calculated does not match/);
    expect(bedrock.received.length).toBe(before);
    expect(bedrock.refused.at(-1)!.type).toBe('InvalidSignatureException');
  });

  it('API-key mode: Authorization: Bearer, no signature', async () => {
    bedrock.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'keyed' }] });
    const keyed = new AnthropicBedrock({ apiKey: 'bedrock-api-key-1', awsRegion: 'us-west-2', baseURL: bedrock.url, maxRetries: 0 });
    const msg = await keyed.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    expect(msg.content[0]).toMatchObject({ text: 'keyed' });
    expect(bedrock.received.at(-1)!.auth).toBe('api-key');
    const bad = new AnthropicBedrock({ apiKey: 'bedrock-api-key-wrong', awsRegion: 'us-west-2', baseURL: bedrock.url, maxRetries: 0 });
    const err = await bad.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect((err as { status: number }).status).toBe(403);
  });
});
