// Gateway behaviour beyond the conformance matrix: authentication on both doors, framework errors in
// the caller's envelope, body limits, version headers and query strings, heartbeats during upstream
// silence, previous_response_id from the gateway's store, token counting, model lists, and a caller
// leaving mid-stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../support/gateway-harness.js';

const KEY = 'sy-test-key-0123456789';
/** /metrics on the API port needs an admin key when there are keys. */
const OPS_KEY = 'sy-test-ops-0123456789';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    apiKey: KEY,
    config: () => ({
      server: { host: '127.0.0.1', port: 0, heartbeat_ms: 150, body_limit_bytes: 64 * 1024 },
      auth: { keys: [{ name: 'team-a', key: KEY }], admin_keys: [{ name: 'ops', key: OPS_KEY }] },
      log: { level: 'silent' },
    }),
  });
});

afterAll(async () => {
  await h?.close();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(h.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const messagesBody = (extra: Record<string, unknown> = {}) => ({
  model: MODELS.messages.alias,
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

describe('authentication', () => {
  it('accepts x-api-key and Authorization: Bearer on both doors', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'a' }] }, { kind: 'reply', blocks: [{ type: 'text', text: 'b' }] });
    expect((await post('/v1/messages', messagesBody())).status).toBe(200);
    const r = await fetch(h.url + '/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: MODELS.responses.alias, input: 'Hi' }),
    });
    expect(r.status).toBe(200);
  });

  it('rejects a missing or wrong key in each door’s envelope, without echoing it', async () => {
    const m = await post('/v1/messages', messagesBody(), { 'x-api-key': 'wrong-key-value' });
    expect(m.status).toBe(401);
    const mb = await m.text();
    expect(JSON.parse(mb)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(mb).not.toContain('wrong-key-value');
    const r = await fetch(h.url + '/v1/responses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', input: 'y' }) });
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
  });
});

describe('framework errors in the caller’s protocol', () => {
  it('bad JSON, unknown model, unknown route, oversized body', async () => {
    const bad = await post('/v1/responses', '{not json');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { type: 'invalid_request_error' } });

    const unknown = await post('/v1/messages', messagesBody({ model: 'no-such-model' }));
    expect(unknown.status).toBe(404);
    const ub = await unknown.json();
    expect(ub).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect(JSON.stringify(ub)).toContain('no-such-model');
    expect(JSON.stringify(ub)).not.toContain('upstream-key');

    const route = await fetch(h.url + '/v1/responses/abc/cancel', { method: 'POST', headers: { authorization: `Bearer ${KEY}` } });
    expect(route.status).toBe(404);
    expect(await route.json()).toMatchObject({ error: { type: 'invalid_request_error' } });

    const big = await post('/v1/messages', messagesBody({ messages: [{ role: 'user', content: 'x'.repeat(70 * 1024) }] }));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });

  it('a field error names the field', async () => {
    const r = await post('/v1/messages', { model: MODELS.messages.alias, messages: [] });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { message: string } }).error.message).toContain('max_tokens');
  });
});

describe('headers and query strings real clients send', () => {
  it('any anthropic-version, vendor-version, none at all, and ?beta=true; anthropic-beta forwarded on pass-through', async () => {
    const variants: Record<string, string>[] = [{ 'anthropic-version': '2023-06-01' }, { 'anthropic-version': '2026-10-21' }, { 'vendor-version': '2023-06-01' }, {}];
    for (const headers of variants) {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
      const r = await post('/v1/messages?beta=true', messagesBody(), { ...headers, 'anthropic-beta': 'interleaved-thinking-2025-05-14,context-1m-2025-08-07' });
      expect(r.status).toBe(200);
      const seen = h.upstream.received[h.upstream.received.length - 1]!;
      expect(seen.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14,context-1m-2025-08-07');
      expect(seen.headers['x-api-key']).toBe('upstream-key-messages'); // the provider's key, never the caller's
      expect(r.headers.get('request-id')).toMatch(/^req_/);
    }
  });

  it('echoes a sane x-request-id', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const r = await fetch(h.url + '/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, 'x-request-id': 'trace-42' },
      body: JSON.stringify({ model: MODELS.chat.alias, input: 'Hi' }),
    });
    expect(r.headers.get('x-request-id')).toBe('trace-42');
    expect(r.headers.get('x-switchyard-provider')).toBe('up-chat');
    expect(r.headers.get('x-switchyard-model')).toBe(MODELS.chat.upstream);
  });
});

describe('heartbeats during upstream silence', () => {
  it('Messages callers get ping events; Responses callers get SSE comments', async () => {
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'thinking…' }], ms: 700 });
    const m = await post('/v1/messages', messagesBody({ model: MODELS.responses.alias, stream: true }));
    const mt = await m.text();
    expect(mt.match(/event: ping\n/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(mt).toContain('event: message_stop');

    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'thinking…' }], ms: 700 });
    const r = await fetch(h.url + '/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: MODELS.messages.alias, input: 'Hi', stream: true }),
    });
    const rt = await r.text();
    expect(rt.match(/^: keep-alive$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(rt).toContain('event: response.completed');
  });
});

describe('previous_response_id', () => {
  it('continues a translated conversation from the gateway’s store; an unknown id is a 400', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Nice to meet you, Ada.' }] });
    const first = await h.openai.responses.create({ model: MODELS.messages.alias, input: 'My name is Ada.' });
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Ada.' }] });
    await h.openai.responses.create({ model: MODELS.messages.alias, input: 'What is my name?', previous_response_id: first.id });
    const seen = h.upstream.received[h.upstream.received.length - 1]!.body;
    expect(seen.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'My name is Ada.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Nice to meet you, Ada.' }] },
      { role: 'user', content: [{ type: 'text', text: 'What is my name?' }] },
    ]);
    const err = await h.openai.responses.create({ model: MODELS.messages.alias, input: 'x', previous_response_id: 'resp_unknown' }).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ code: 'previous_response_not_found', param: 'previous_response_id' });
  });
});

describe('token counting and model lists', () => {
  it('count_tokens uses the upstream counter for an Anthropic deployment and estimates for a Chat one', async () => {
    const up = await post('/v1/messages/count_tokens?beta=true', { model: MODELS.messages.alias, messages: [{ role: 'user', content: 'Hello there' }] });
    expect(up.status).toBe(200);
    expect(up.headers.get('x-switchyard-token-count')).toBe('upstream');
    expect(h.upstream.received[h.upstream.received.length - 1]!.path).toBe('/v1/messages/count_tokens');
    const est = await h.anthropic.messages.countTokens({ model: MODELS.chat.alias, messages: [{ role: 'user', content: 'Hello there, how are you?' }] });
    expect(est.input_tokens).toBeGreaterThanOrEqual(7); // errs high: ~25 chars of text
    const it2 = await fetch(h.url + '/v1/responses/input_tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: MODELS.chat.alias, input: 'Hello' }),
    });
    expect(await it2.json()).toMatchObject({ object: 'response.input_tokens' });
  });

  it('GET /v1/models in each protocol’s list shape', async () => {
    const a = await fetch(h.url + '/v1/models', { headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' } });
    const ab = (await a.json()) as { data: { id: string }[] };
    expect(ab.data.map((m: { id: string }) => m.id)).toEqual([MODELS.messages.alias, MODELS.responses.alias, MODELS.chat.alias, MODELS.gemini.alias]);
    expect(ab.data[0]).toMatchObject({ type: 'model', created_at: expect.any(String) });
    const list = await h.openai.models.list();
    expect(list.data.map((m) => m.id)).toContain(MODELS.chat.alias);
    expect(list.data[0]).toMatchObject({ object: 'model', created: expect.any(Number) });
  });
});

describe('a caller leaving mid-stream', () => {
  it('aborts the upstream request and counts the abort', async () => {
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'partial' }], ms: 5_000 });
    const r = await post('/v1/messages', messagesBody({ model: MODELS.chat.alias, stream: true }));
    const reader = r.body!.getReader();
    await reader.read();
    await reader.cancel();
    await new Promise((res) => setTimeout(res, 300));
    const metrics = await (await fetch(h.url + '/metrics', { headers: { 'x-api-key': OPS_KEY } })).text();
    expect(metrics).toMatch(/switchyard_streams_client_aborted_total\{front_door="messages"\} [1-9]/);
    expect(metrics).toMatch(/switchyard_upstream_aborts_total\{provider="up-chat"\} [1-9]/);
  });
});
