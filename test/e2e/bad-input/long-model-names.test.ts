// Hostile model names (issue 19, item 5) on a wildcard route, as the embedded default's `demo-*`:
// a name over 256 characters is a 400 in the door's envelope naming `model` (a 100 KiB name used to be
// echoed in x-switchyard-model and break the caller's own HTTP client), and a stream of distinct random
// names neither grows the per-deployment health table past its bound nor the heap.
import Anthropic from '@anthropic-ai/sdk';
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: () => ({ providers: { demo: { protocol: 'demo' } }, models: { 'demo-*': { provider: 'demo' } } }) });
});
afterAll(async () => {
  await h?.close();
});

const name = (length: number) => ('demo-' + randomBytes(Math.ceil(length / 2)).toString('hex')).slice(0, length);

async function post(door: 'messages' | 'responses', model: string): Promise<{ status: number; body: { error?: { type?: string; message?: string; param?: string | null } }; headerBytes: number }> {
  const body =
    door === 'messages'
      ? { model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }
      : { model, input: 'hi', store: false };
  const res = await fetch(`${h.url}/v1/${door}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify(body) });
  let headerBytes = 0;
  res.headers.forEach((v, k) => (headerBytes += k.length + v.length));
  return { status: res.status, body: (await res.json()) as never, headerBytes };
}

function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

describe('long and random model names on a wildcard route', () => {
  it('a 100 KiB model name gets a 400 naming `model` in each door\'s envelope, which the SDKs read', async () => {
    const huge = name(100 * 1024);
    const anthropic = await post('messages', huge);
    expect(anthropic.status).toBe(400);
    expect(anthropic.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(anthropic.body.error!.message!).toMatch(/model/);
    expect(anthropic.body.error!.message!.length).toBeLessThan(1000);
    const openai = await post('responses', huge);
    expect(openai.status).toBe(400);
    expect(openai.body.error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
    expect(openai.headerBytes).toBeLessThan(2000);

    const viaAnthropic = await h.anthropic.messages.create({ model: huge, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(viaAnthropic).toBeInstanceOf(Anthropic.BadRequestError);
    const viaOpenAI = await h.openai.responses.create({ model: huge, input: 'hi' }).catch((e: unknown) => e);
    expect(viaOpenAI).toBeInstanceOf(OpenAI.BadRequestError);
    expect((viaOpenAI as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('model');
  });

  it('names at the bound are answered with a bounded header; names over it all get 400 and pin no memory', async () => {
    const at = await post('messages', name(256));
    expect(at.status).toBe(200);
    expect(at.headerBytes).toBeLessThan(2000);

    const before = heapMiB();
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => post(i % 2 ? 'responses' : 'messages', name(100 * 1024))));
      for (const a of answers) expect(a.status).toBe(400);
    }
    // 200 distinct 100 KiB names: ~40 MiB of UTF-16 if anything kept them.
    expect(heapMiB() - before).toBeLessThan(12);
  }, 60_000);

  it('more distinct names than the health table holds: every one answered, the table stays bounded', async () => {
    const health = h.gateway.ctx.health;
    for (let round = 0; round < 60; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2 ? 'responses' : 'messages', name(200))));
      for (const a of answers) expect(a.status).toBe(200);
    }
    expect(health.size).toBeLessThanOrEqual(1000);
    expect(health.size).toBeGreaterThan(500);
  }, 60_000);
});
