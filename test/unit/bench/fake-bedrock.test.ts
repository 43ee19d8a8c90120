// The bench's fake Bedrock answers what the gateway's Bedrock platform sends: a signed invoke with the
// complete Messages body, and the same answer as an event stream that the platform turns back into the
// full Messages SSE sequence. So bench/bedrock-overhead.ts never measures a broken exchange.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ANSWER_TEXT } from '../../../bench/corpus.js';
import { startFakeBedrock } from '../../../bench/fake-bedrock.js';
import { requestBody } from '../../../bench/request-bodies.js';
import type { ProviderConfig } from '../../../src/config/types.js';
import { createBedrockPlatform } from '../../../src/platforms/bedrock.js';

let fake: Awaited<ReturnType<typeof startFakeBedrock>>;
beforeAll(async () => {
  fake = await startFakeBedrock({ events: 12 });
});
afterAll(async () => {
  await fake?.close();
});

const provider = () =>
  ({ name: 'bench-bedrock', origin: fake.url, basePath: '', apiKeys: [], timeouts: { connectMs: 10_000 }, platform: { kind: 'bedrock', region: 'us-east-1', auth: 'aws' } }) as unknown as ProviderConfig;

async function send(stream: boolean) {
  const platform = createBedrockPlatform(provider(), { identityProvider: async () => ({ accessKeyId: 'AKIABENCH', secretAccessKey: 'secret' }) });
  const req = await platform.prepare({
    path: '/v1/messages',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: requestBody('messages', 'claude-bench', stream),
    model: 'us.anthropic.claude-bench-v1:0',
    stream,
    operation: 'generate',
  });
  const res = await request(fake.url + req.path, { method: 'POST', headers: req.headers, body: req.body });
  return { res, platform };
}

describe('bench fake Bedrock', () => {
  it('answers a signed invoke with the whole Messages body', async () => {
    const { res } = await send(false);
    expect(res.statusCode).toBe(200);
    const body = (await res.body.json()) as { content: { text: string }[]; model: string };
    expect(body.content[0]!.text).toBe(ANSWER_TEXT);
    expect(body.model).toBe('us.anthropic.claude-bench-v1:0');
  });

  it('streams event-stream chunks the platform turns into the complete SSE sequence', async () => {
    const { res, platform } = await send(true);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.amazon.eventstream');
    let text = '';
    for await (const c of platform.streamBody!(res.body as unknown as Readable)) text += c.toString();
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    const deltas = [...text.matchAll(/^data: (.+)$/gm)]
      .map((m) => JSON.parse(m[1]!) as { type: string; delta?: { text?: string } })
      .filter((d) => d.type === 'content_block_delta')
      .map((d) => d.delta!.text)
      .join('');
    expect(deltas).toBe(ANSWER_TEXT);
  });

  it('refuses an unsigned request', async () => {
    const res = await request(fake.url + '/model/x/invoke', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.statusCode).toBe(403);
    await res.body.text();
  });
});
