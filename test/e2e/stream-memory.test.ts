// An open stream must not keep the caller's parsed request alive (issue 14, memory under
// many concurrent streams): once the answer is committed no attempt re-sends it, so it is collectable
// while the stream runs. An answer to be stored (Responses `store`) keeps the body's text only, one
// string, for the record it saves at the end.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { resolveConfig } from '../../src/config/load-config.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let upstream: ScriptedUpstream;
let gateway: BuiltApp;
let url: string;
/** The parsed body of the last generation request, held weakly. */
let lastBody: WeakRef<object> | undefined;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  const provider = (protocol: 'messages' | 'responses', base: string) => ({ protocol, base_url: base, api_key: `k-${protocol}`, retry: { attempts: 1 } });
  const config = resolveConfig(
    {
      auth: { open: true },
      server: { host: '127.0.0.1', port: 0 },
      log: { level: 'silent' },
      providers: { 'up-messages': provider('messages', upstream.url), 'up-responses': provider('responses', upstream.url + '/v1') },
      models: { 'via-messages': { provider: 'up-messages', model: 'claude-up' }, 'via-responses': { provider: 'up-responses', model: 'gpt-up' } },
    },
    'test',
  );
  gateway = buildApp(config, { logger: pino({ level: 'silent' }) });
  gateway.app.addHook('preHandler', async (req) => {
    if (req.body && typeof req.body === 'object') lastBody = new WeakRef(req.body);
  });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gateway.setReady(true);
  const address = gateway.app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}, 20_000);

afterAll(async () => {
  await gateway?.app.close();
  await upstream?.close();
});

const conversation = Array.from({ length: 7 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} `.repeat(200).trim() }));

/** Sends a streamed request whose answer stalls after its first events; resolves when the first bytes
 * arrive, with a function that reads the rest. */
async function openStalledStream(path: string, body: unknown): Promise<() => Promise<string>> {
  upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'hello' }], ms: 1500 });
  const res = await request(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', authorization: 'Bearer k', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
    bodyTimeout: 10_000,
    headersTimeout: 10_000,
  });
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${await res.body.text()}`);
  const chunks: Buffer[] = [];
  const first = new Promise<void>((resolve) => res.body.once('data', () => resolve()));
  res.body.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    res.body.on('end', resolve);
    res.body.on('error', reject);
  });
  await first;
  return async () => {
    await done;
    return Buffer.concat(chunks).toString('utf8');
  };
}

async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 5; i++) {
    // Let the turn that parsed the first frames finish, then collect.
    await new Promise((r) => setImmediate(r));
    gc();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

describe('memory of an open pass-through stream', () => {
  it('Messages: the caller’s parsed body is collectable while the stream is open, and the stream still completes', async () => {
    lastBody = undefined;
    const rest = await openStalledStream('/v1/messages', { model: 'via-messages', max_tokens: 100, stream: true, messages: conversation });
    const ref = lastBody!;
    expect(ref).toBeDefined();
    expect(await collected(ref)).toBe(true);
    const text = await rest();
    expect(text).toContain('event: message_stop');
    expect(text).toContain('hello');
    // The upstream got the whole conversation (released only after it was sent).
    expect(upstream.received.at(-1)!.body.messages).toHaveLength(conversation.length);
  }, 15_000);

  it('translation (Messages door, Responses upstream): the caller’s parsed body is collectable while the stream is open', async () => {
    lastBody = undefined;
    const rest = await openStalledStream('/v1/messages', { model: 'via-responses', max_tokens: 100, stream: true, messages: conversation });
    expect(await collected(lastBody!)).toBe(true);
    const text = await rest();
    expect(text).toContain('event: message_stop');
    expect(text).toContain('hello');
    expect(upstream.received.at(-1)!.body.input).toHaveLength(conversation.length);
  }, 15_000);

  it('Responses with store: the parsed body is collectable while the stream is open (its text is kept), and the stored response has the input', async () => {
    lastBody = undefined;
    const input = conversation.map((m) => ({ role: m.role, content: m.content }));
    const rest = await openStalledStream('/v1/responses', { model: 'via-responses', stream: true, store: true, input });
    expect(await collected(lastBody!)).toBe(true);
    const text = await rest();
    const id = /"id":"(resp_[^"]+)"/.exec(text)?.[1];
    expect(id).toBeDefined();
    // Stored after the caller's last byte: poll briefly.
    let items: { data?: unknown[] } = {};
    for (let i = 0; i < 50 && !items.data; i++) {
      const r = await request(`${url}/v1/responses/${id}/input_items`, { headers: { authorization: 'Bearer k' } });
      if (r.statusCode === 200) items = (await r.body.json()) as { data?: unknown[] };
      else {
        await r.body.dump();
        await new Promise((res) => setTimeout(res, 20));
      }
    }
    expect(items.data).toHaveLength(input.length);
  }, 15_000);
});
