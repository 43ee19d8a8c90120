// Routing, recording, the reply queue, timing and connection failures of the scripted upstream.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { parseSse, postJson } from './raw-http.js';

let upstream: ScriptedUpstream;
beforeEach(async () => {
  upstream = await startScriptedUpstream();
});
afterEach(() => upstream.close());

const messagesBody = { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] };
const chatBody = { model: 'c', messages: [{ role: 'user', content: 'Hi' }] };

describe('routing and recording', () => {
  it('unknown paths get a 404 in the family-appropriate JSON shape', async () => {
    const openai = await fetch(`${upstream.url}/v1/nope`);
    expect(openai.status).toBe(404);
    expect(await openai.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'not_found' } });
    const anthropic = await fetch(`${upstream.url}/v1/messages/batches`, { headers: { 'anthropic-version': '2023-06-01' } });
    expect(anthropic.status).toBe(404);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect(upstream.received.map((r) => [r.method, r.path])).toEqual([
      ['GET', '/v1/nope'],
      ['GET', '/v1/messages/batches'],
    ]);
  });

  it('a body that is not JSON is a 400 in the protocol shape, and still recorded', async () => {
    const res = await fetch(`${upstream.url}/v1/chat/completions`, { method: 'POST', body: 'not json', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(upstream.received[0]).toMatchObject({ protocol: 'chat', body: 'not json', stream: false });
  });

  it('decompresses gzip request bodies', async () => {
    const res = await fetch(`${upstream.url}/v1/chat/completions`, {
      method: 'POST',
      body: gzipSync(JSON.stringify(chatBody)),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(200);
    expect(upstream.received[0]!.body).toEqual(chatBody);
  });

  it('replies in FIFO order, then falls back to the default, which can be replaced', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'one' }] }, { kind: 'reply', blocks: [{ type: 'text', text: 'two' }] });
    const text = async () => ((await (await postJson(`${upstream.url}/v1/chat/completions`, chatBody)).json()) as OpenAI.ChatCompletion).choices[0]!.message.content;
    expect(await text()).toBe('one');
    expect(await text()).toBe('two');
    expect(await text()).toBe('You said: Hi'); // agentLoopReply without tools
    upstream.setDefault((req) => ({ kind: 'reply', blocks: [{ type: 'text', text: `default for ${req.protocol}` }] }));
    expect(await text()).toBe('default for chat');
  });

  it('accepts a default in the options', async () => {
    const other = await startScriptedUpstream({ defaultReply: () => ({ kind: 'http-error', status: 503 }) });
    try {
      expect((await postJson(`${other.url}/v1/chat/completions`, chatBody)).status).toBe(503);
    } finally {
      await other.close();
    }
  });
});

describe('timing and connection failures', () => {
  it('reset-before-headers destroys the connection after recording the request', async () => {
    upstream.enqueue({ kind: 'reset-before-headers' });
    const client = new Anthropic({ baseURL: upstream.url, apiKey: 'k', maxRetries: 0 });
    await expect(client.messages.create(messagesBody as Anthropic.MessageCreateParamsNonStreaming)).rejects.toBeInstanceOf(Anthropic.APIConnectionError);
    expect(upstream.received).toHaveLength(1);
  });

  it('reset-mid-stream sends events then destroys the socket', async () => {
    upstream.enqueue({ kind: 'reset-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }] });
    const client = new Anthropic({ baseURL: upstream.url, apiKey: 'k', maxRetries: 0 });
    const seen: string[] = [];
    const stream = client.messages.stream(messagesBody as Anthropic.MessageCreateParamsNonStreaming).on('text', (t) => seen.push(t));
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(seen.join('')).toBe('partial answer');
  });

  it('reset-mid-stream on a non-streamed request cuts the JSON body', async () => {
    upstream.enqueue({ kind: 'reset-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }] });
    const client = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'k', maxRetries: 0 });
    await expect(client.chat.completions.create(chatBody as OpenAI.ChatCompletionCreateParamsNonStreaming)).rejects.toThrow();
  });

  it('stall sends the blocks, goes silent for ms, then ends normally', async () => {
    upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'before the pause' }], ms: 300 });
    const res = await postJson(`${upstream.url}/v1/responses`, { model: 'r', input: 'Hi', stream: true });
    const reader = res.body!.getReader();
    const arrivals: { at: number; text: string }[] = [];
    const start = Date.now();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrivals.push({ at: Date.now() - start, text: Buffer.from(value).toString('utf8') });
    }
    const all = arrivals.map((a) => a.text).join('');
    const names = parseSse(all).map((e) => e.event);
    expect(names.at(-1)).toBe('response.completed');
    const terminalAt = arrivals.find((a) => a.text.includes('response.completed'))!.at;
    const lastBlockAt = arrivals.find((a) => a.text.includes('response.output_item.done'))!.at;
    expect(terminalAt - lastBlockAt).toBeGreaterThanOrEqual(250);
  });

  it('delay-headers holds the response headers back', async () => {
    upstream.enqueue({ kind: 'delay-headers', ms: 250, then: { kind: 'http-error', status: 429, retryAfter: '1' } });
    const start = Date.now();
    const res = await postJson(`${upstream.url}/v1/messages`, messagesBody);
    expect(Date.now() - start).toBeGreaterThanOrEqual(240);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('close() ends promptly even with a long stall in progress', async () => {
    upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'x' }], ms: 60_000 });
    const firstBytes = new Promise<void>((resolve, reject) => {
      const req = request(`${upstream.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.once('data', () => resolve());
        res.on('error', () => undefined);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ ...chatBody, stream: true }));
    });
    await firstBytes;
    const start = Date.now();
    await upstream.close();
    expect(Date.now() - start).toBeLessThan(2_000);
  });
});
